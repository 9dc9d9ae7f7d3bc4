#pragma once
// Errors of the CUDA runtime and NCCL as core::Error (kInternal, naming the failed call
// and the library's own text), and the device probe every GPU entry point starts with: without
// a usable GPU it answers kBackendMissing saying what is missing, e.g. on a machine without the
// NVIDIA driver
//   "no CUDA device: cudaGetDeviceCount returned 35 (CUDA driver not found or older than the
//    CUDA runtime; cudaErrorInsufficientDriver)".

#include <cuda_runtime.h>
#include <nccl.h>

#include <string_view>

#include "core/result.h"

namespace dtplan::replay {

// Ok for cudaSuccess, else kInternal "`what`: cudaErrorX (text)".
core::Status cuda_status(cudaError_t code, std::string_view what);

// Ok for ncclSuccess, else kInternal "`what`: NCCL error N (text); last error: ...".
core::Status nccl_status(ncclResult_t code, std::string_view what);

// The number of CUDA devices. Errors (kBackendMissing): cudaGetDeviceCount failed (the message
// gives its code and what it means) or found no device.
core::Result<int> cuda_device_count();

}  // namespace dtplan::replay
