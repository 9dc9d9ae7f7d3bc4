#include "strategy/float8_cost.h"

#include "core/checked.h"
#include "cost/roofline.h"
#include "strategy/compute_cost.h"

namespace dtplan::strategy {

bool is_float8_gemm(const graph::Node& node) {
  if (node.op != graph::OpKind::kEinsum || !node.attrs.contains("float8")) return false;
  auto flag = node.attrs.get_bool_or("float8", false);
  return flag.ok() && *flag;
}

std::int64_t float8_cast_bytes_per_element(core::DType src) {
  const int bytes = core::dtype_bytes(src);
  return bytes <= 1 ? 0 : 2 * bytes + 1;
}

core::Result<double> float8_cast_us(std::span<const graph::TensorMeta> inputs,
                                    std::span<const graph::Shape> local_inputs,
                                    const cost::HardwareProfile& profile,
                                    core::Execution execution) {
  double total_us = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::int64_t per_element = float8_cast_bytes_per_element(inputs[i].dtype);
    if (per_element == 0) continue;
    DTPLAN_TRY(std::int64_t n, core::checked_product(local_inputs[i], "float8 cast numel"));
    DTPLAN_TRY(std::int64_t bytes, core::checked_mul(n, per_element, "float8 cast bytes"));
    const core::DType fp8 = core::DType::kF8E4M3;
    DTPLAN_TRY(cost::ComputeCost eager, cost::roofline(cost::Work{0, bytes}, fp8, profile));
    if (execution == core::Execution::kEager) {
      total_us += eager.time_us;
      continue;
    }
    // Fused into its producer: only the fp8 write (n bytes), no launch of its own.
    DTPLAN_TRY(cost::ComputeCost fused, cost::roofline(cost::Work{0, n}, fp8, profile));
    total_us += eager.time_us - kCompiledFusionShare * (eager.time_us - fused.memory_us);
  }
  return total_us;
}

}  // namespace dtplan::strategy
