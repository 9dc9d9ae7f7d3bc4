// Norms kept whole (docs/reference/strategy_selection.md §2.8): _fused_rms_norm and
// native_layer_norm (a kOther target), forward and backward. One strategy per option of the
// producer of x (slot 0 forward, slot 1 backward): shards of the normalized dims (the trailing
// len(normalized_shape) dims) and every Partial are replicated, giving the target placement t.
//   forward   inputs: x = t, weight and bias R; outputs: every output (y, mean, rstd) = t (the
//             statistics keep x's rank with size-1 normalized dims, which t never shards)
//   backward  inputs: grad, x and the statistics = t, weight and bias R; outputs: grad_input = t,
//             grad_weight and grad_bias = P(sum) on every mesh dim where t shards (an outer dim:
//             the weight gradient sums over the outer dims), R elsewhere
// Input slots: fused forward (x, [w]), fused backward (grad, x, rstd, [w]); layer norm forward
// (x, [w], [b]), backward (grad, x, mean, rstd, [w], [b]).
//
// LLaMA3 as AutoParallel traces it decomposes RMSNorm into pointwise ops and a mean
// (docs/reference/strategy_selection.md §2.8); this rule serves graphs that keep the fused op.

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

core::Result<RuleOutput> norm_rule(const OpContext& ctx) {
  const graph::Node& node = ctx.node;
  const bool layer_norm = node.op == graph::OpKind::kOther;
  const std::string_view base = layer_norm ? aten_base_name(node.target) : "";
  const bool backward =
      node.op == graph::OpKind::kFusedRmsNormBackward || base == "native_layer_norm_backward";
  // Slots read as activations (the rest are weight and bias).
  const std::size_t x_slot = backward ? 1 : 0;
  const std::size_t activations = backward ? (layer_norm ? 4 : 3) : 1;
  if (ctx.num_inputs() < activations || ctx.num_outputs() == 0) {
    return core::Error::bad_input("field 'inputs': the norm needs at least " +
                                  std::to_string(activations) + " inputs");
  }
  DTPLAN_TRY(std::vector<std::int64_t> normalized, node.attrs.get_ints("normalized_shape"));
  const std::size_t rank = ctx.in_shape(x_slot).size();
  if (normalized.empty() || normalized.size() > rank) {
    return core::Error::bad_input(graph::attr_field("normalized_shape") + ": " +
                                  graph::format_shape(normalized) + " does not fit a " +
                                  std::to_string(rank) + "-d input");
  }
  const auto axis = static_cast<std::int64_t>(rank - normalized.size());
  const std::size_t n_in = ctx.num_inputs(), n_out = ctx.num_outputs();
  const Placements replicated = all_replicate(ctx.mesh_ndim());
  return follow(Rule::kNorm, ctx, x_slot, [&](const Placements& src) -> std::optional<Candidate> {
    Placements t = replicate_if(src, [axis](const Placement& p) {
      return p.is_partial() || (p.is_shard_like() && p.dim() >= axis);
    });
    Candidate c;
    c.inputs.assign(n_in, replicated);
    for (std::size_t i = 0; i < activations; ++i) c.inputs[i] = t;
    c.outputs.assign(n_out, t);
    if (backward) {
      Placements grad_weight = replicated;
      for (std::size_t k = 0; k < t.size(); ++k) {
        if (t[k].is_shard_like()) grad_weight[k] = Placement::partial();
      }
      for (std::size_t o = 1; o < n_out; ++o) c.outputs[o] = grad_weight;
    }
    return c;
  });
}

}  // namespace dtplan::strategy::ops
