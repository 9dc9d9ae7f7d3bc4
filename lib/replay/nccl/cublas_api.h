#pragma once
// cuBLAS, loaded on first use (dlopen of libcublas.so.<CUDA major>) instead of linked: libcublas
// and libcublasLt take about 0.1 s to load at every process start, which every dtplan command
// would pay although only GEMM timing uses them. Types come from cublas_v2.h; the functions are
// looked up once.
//
//   DTPLAN_TRY(const CublasApi* api, cublas_api());
//   DTPLAN_CHECK(cublas_status(*api, api->create(&handle), "cublasCreate"));

#include <cublas_v2.h>

#include <string_view>

#include "core/result.h"

namespace dtplan::replay {

// cublasGemmEx with a cublasComputeType_t (the C++ header also declares an inline overload).
using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                        int, int, const void*, const void*, cudaDataType, int,
                                        const void*, cudaDataType, int, const void*, void*,
                                        cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  CublasGemmEx gemm_ex = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

// The loaded functions (loaded once, kept for the process). Errors (kBackendMissing): the library
// or one of its functions was not found (dlerror's text).
core::Result<const CublasApi*> cublas_api();

// Ok for CUBLAS_STATUS_SUCCESS, else kInternal "`what`: CUBLAS_STATUS_X (text)".
core::Status cublas_status(const CublasApi& api, cublasStatus_t code, std::string_view what);

}  // namespace dtplan::replay
