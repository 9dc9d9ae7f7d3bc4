#include "replay/nccl/cublas_api.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>

namespace dtplan::replay {

namespace {

template <class F>
bool load(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

core::Result<CublasApi> load_api() {
  const std::string soname = "libcublas.so." + std::to_string(CUDART_VERSION / 1000);
  void* library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return core::Error::backend_missing("cuBLAS not found: dlopen(" + soname +
                                        "): " + (why != nullptr ? why : "unknown error"));
  }
  // Never closed: the functions stay valid for the process.
  CublasApi api;
  const bool ok = load(library, "cublasCreate_v2", api.create) &&
                  load(library, "cublasDestroy_v2", api.destroy) &&
                  load(library, "cublasSetStream_v2", api.set_stream) &&
                  load(library, "cublasGemmEx", api.gemm_ex) &&
                  load(library, "cublasGetStatusName", api.status_name) &&
                  load(library, "cublasGetStatusString", api.status_string);
  if (!ok) {
    const char* why = dlerror();
    return core::Error::backend_missing(
        "cuBLAS (" + soname + ") lacks a function: " + (why != nullptr ? why : "unknown error"));
  }
  return api;
}

}  // namespace

core::Result<const CublasApi*> cublas_api() {
  static const core::Result<CublasApi> api = load_api();
  if (!api.ok()) return api.error();
  return &api.value();
}

core::Status cublas_status(const CublasApi& api, cublasStatus_t code, std::string_view what) {
  if (code == CUBLAS_STATUS_SUCCESS) return {};
  return core::Error::internal(std::string(what) + ": " + api.status_name(code) + " (" +
                               api.status_string(code) + ")");
}

}  // namespace dtplan::replay
