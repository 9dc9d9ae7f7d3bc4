#pragma once
// The GPU side of time_gemm (backends.h): cublasGemmEx timed with CUDA events on one device.
// Built only with the NCCL backend (CUDA); backends.cc forwards to it.
//
//   gemm_time(8192, 8192, 8192, core::DType::kBF16, {}).value().median_us

#include <cstdint>

#include "core/dtype.h"
#include "core/result.h"
#include "replay/backends.h"
#include "replay/timing.h"

namespace dtplan::replay {

// Contract as time_gemm in backends.h.
core::Result<TimingStats> gemm_time(std::int64_t m, std::int64_t n, std::int64_t k,
                                    core::DType dtype, const GemmOptions& options);

}  // namespace dtplan::replay
