// kOther nodes (aten ops without an OpKind), by their aten target: the few families dtplan has
// rules for (layer norm, non-linear reductions, replicate-only factories), else AutoParallel's
// last resort, a single all-Replicate strategy (every input gathered, the op run whole).

#include <array>
#include <string_view>

#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {
namespace {

constexpr std::array<std::string_view, 8> kNonLinearReductions = {
    "var", "std", "var_mean", "prod", "logsumexp", "argmax", "argmin", "cumsum"};

}  // namespace

Rule other_target_rule(std::string_view target) {
  const std::string_view base = aten_base_name(target);
  if (base == "native_layer_norm" || base == "native_layer_norm_backward") return Rule::kNorm;
  for (std::string_view name : kNonLinearReductions) {
    if (base == name) return Rule::kReduction;
  }
  if (base == "scalar_tensor" || base == "iota") return Rule::kFactory;
  return Rule::kReplicate;
}

core::Result<RuleOutput> other_rule(const OpContext& ctx) {
  switch (other_target_rule(ctx.node.target)) {
    case Rule::kNorm:
      return norm_rule(ctx);
    case Rule::kReduction:
      return reduction_rule(ctx);
    case Rule::kFactory:
      return factory_rule(ctx);
    default:
      return replicate_rule(ctx);
  }
}

}  // namespace dtplan::strategy::ops
