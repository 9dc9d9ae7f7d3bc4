#pragma once
// The compute roofline (docs/reference/strategy_selection.md §3.1, with SI units, and the kernel
// efficiency tables of kernel_efficiency.h):
//   time_us = max(flops / (peak[dtype] x efficiency(kernel)),
//                 bytes / (HBM x memory_efficiency),
//                 launch_floor_us)
// Work (FLOPs and HBM bytes) comes from the formulas of compute_work.h. A Work with zero FLOPs
// (pointwise, reductions, copies) is priced by its memory traffic alone and never needs a peak.
//
//   H100, bf16 einsum [2,8192,4096] x [4096,512]: 68.7 GFLOP -> 99.2 us (compute-bound)

#include <cstdint>

#include "core/dtype.h"
#include "core/result.h"
#include "cost/hardware.h"

namespace dtplan::cost {

struct Work {
  double flops = 0;        // floating-point operations (a multiply-add counts 2)
  std::int64_t bytes = 0;  // HBM bytes read + written
  bool operator==(const Work&) const = default;
};

enum class Bound : std::uint8_t { kCompute, kMemory, kLaunch };

struct ComputeCost {
  double time_us = 0;
  double compute_us = 0;         // the FLOP term
  double memory_us = 0;          // the HBM term
  Bound bound = Bound::kLaunch;  // which term is the max (ties: compute, then memory)
  bool operator==(const ComputeCost&) const = default;
};

// Which efficiency the FLOP term uses (hardware.h ComputeEfficiency, kernel_efficiency.h).
enum class KernelKind : std::uint8_t {
  kGeneric,            // compute_efficiency
  kGemm,               // the GEMM table by work.flops
  kAttentionForward,   // the attention forward table by key_len
  kAttentionBackward,  // the attention backward table by key_len
};

struct Kernel {
  KernelKind kind = KernelKind::kGeneric;
  std::int64_t key_len = 0;  // attention: the key/value sequence length
  bool operator==(const Kernel&) const = default;
};

// The efficiency of the FLOP term for `kernel` doing `flops` on `profile`: the table's value
// times tensor_throughput_factor, or compute_efficiency where the profile has no table for it
// (and for kGeneric).
// Example (h100-dgx): a 2^36-FLOP GEMM -> 0.801 x 1.0.
double flop_efficiency(const HardwareProfile& profile, const Kernel& kernel, double flops);

// The roofline time of `work` in `dtype` (the dtype selects the peak FLOP/s) for `kernel`.
// @post time_us = max(compute_us, memory_us, launch floor); non-decreasing in bytes.
// Errors: as roofline() below.
core::Result<ComputeCost> kernel_roofline(const Work& work, core::DType dtype, const Kernel& kernel,
                                          const HardwareProfile& profile);

// The roofline time of `work` in `dtype` (the dtype selects the peak FLOP/s), generic kernel.
// @post time_us = max(compute_us, memory_us, launch floor); non-decreasing in flops and bytes.
// Errors: (kUnsupported) when work.flops > 0 and the profile has no peak for the dtype;
// (kBadInput) for negative work.
core::Result<ComputeCost> roofline(const Work& work, core::DType dtype,
                                   const HardwareProfile& profile);

}  // namespace dtplan::cost
