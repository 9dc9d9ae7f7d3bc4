#include "cost/roofline.h"

#include <algorithm>
#include <string>

namespace dtplan::cost {

double flop_efficiency(const HardwareProfile& profile, const Kernel& kernel, double flops) {
  const ComputeEfficiency& c = profile.compute;
  switch (kernel.kind) {
    case KernelKind::kGeneric:
      return c.compute_efficiency;
    case KernelKind::kGemm:
      if (c.gemm.empty() || !(flops > 0)) return c.compute_efficiency;
      return efficiency_at(c.gemm, flops) * c.tensor_throughput_factor;
    case KernelKind::kAttentionForward:
    case KernelKind::kAttentionBackward: {
      if (!c.attention || kernel.key_len <= 0) return c.compute_efficiency;
      const auto& table = kernel.kind == KernelKind::kAttentionForward ? c.attention->forward
                                                                       : c.attention->backward;
      return efficiency_at(table, static_cast<double>(kernel.key_len)) * c.tensor_throughput_factor;
    }
  }
  return c.compute_efficiency;
}

core::Result<ComputeCost> roofline(const Work& work, core::DType dtype,
                                   const HardwareProfile& profile) {
  return kernel_roofline(work, dtype, Kernel{}, profile);
}

core::Result<ComputeCost> kernel_roofline(const Work& work, core::DType dtype, const Kernel& kernel,
                                          const HardwareProfile& profile) {
  if (!(work.flops >= 0) || work.bytes < 0) {
    return core::Error::bad_input("roofline: negative work (flops " + std::to_string(work.flops) +
                                  ", bytes " + std::to_string(work.bytes) + ")");
  }
  ComputeCost c;
  if (work.flops > 0) {
    DTPLAN_TRY(double peak, peak_flop_per_s(profile, dtype));
    c.compute_us = work.flops / (peak * flop_efficiency(profile, kernel, work.flops)) * 1e6;
  }
  c.memory_us = static_cast<double>(work.bytes) /
                (profile.gpu.hbm_byte_per_s * profile.compute.memory_efficiency) * 1e6;
  double floor = profile.compute.launch_floor_us;
  c.time_us = std::max({c.compute_us, c.memory_us, floor});
  if (c.compute_us >= c.memory_us && c.compute_us >= floor && c.compute_us > 0) {
    c.bound = Bound::kCompute;
  } else if (c.memory_us >= floor && c.memory_us > 0) {
    c.bound = Bound::kMemory;
  } else {
    c.bound = Bound::kLaunch;
  }
  return c;
}

}  // namespace dtplan::cost
