#include "replay/nccl/cuda_status.h"

#include <string>

namespace dtplan::replay {

namespace {

// What a device-count failure means, in the words a user needs.
std::string device_count_reason(cudaError_t code) {
  const std::string name = cudaGetErrorName(code);
  switch (code) {
    case cudaErrorInsufficientDriver:
      return "CUDA driver not found or older than the CUDA runtime; " + name;
    case cudaErrorNoDevice:
      return "no CUDA-capable device is visible; " + name;
    default:
      return std::string(cudaGetErrorString(code)) + "; " + name;
  }
}

}  // namespace

core::Status cuda_status(cudaError_t code, std::string_view what) {
  if (code == cudaSuccess) return {};
  return core::Error::internal(std::string(what) + ": " + cudaGetErrorName(code) + " (" +
                               cudaGetErrorString(code) + ")");
}

core::Status nccl_status(ncclResult_t code, std::string_view what) {
  if (code == ncclSuccess) return {};
  std::string message = std::string(what) + ": NCCL error " + std::to_string(code) + " (" +
                        ncclGetErrorString(code) + ")";
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') message += "; last error: " + std::string(last);
  return core::Error::internal(message);
}

core::Result<int> cuda_device_count() {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess) {
    return core::Error::backend_missing("no CUDA device: cudaGetDeviceCount returned " +
                                        std::to_string(static_cast<int>(code)) + " (" +
                                        device_count_reason(code) + ")");
  }
  if (count < 1) {
    return core::Error::backend_missing("no CUDA device: cudaGetDeviceCount found 0 devices");
  }
  return count;
}

}  // namespace dtplan::replay
