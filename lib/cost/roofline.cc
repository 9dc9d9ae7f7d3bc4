#include "cost/roofline.h"

#include <algorithm>
#include <string>

namespace dtplan::cost {

std::string_view bound_name(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kMemory:
      return "memory";
    case Bound::kLaunch:
      return "launch";
  }
  return "launch";
}

core::Result<ComputeCost> roofline(const Work& work, core::DType dtype,
                                   const HardwareProfile& profile) {
  if (!(work.flops >= 0) || work.bytes < 0) {
    return core::Error::bad_input("roofline: negative work (flops " + std::to_string(work.flops) +
                                  ", bytes " + std::to_string(work.bytes) + ")");
  }
  ComputeCost c;
  if (work.flops > 0) {
    DTPLAN_TRY(double peak, peak_flop_per_s(profile, dtype));
    c.compute_us = work.flops / (peak * profile.compute.compute_efficiency) * 1e6;
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
