// Leaves (study §2.2): placeholders (parameters, buffers, inputs, tangents) and alias nodes offer
// every combination of {R, S(0), ..., S(nd-1)} per mesh dim that passes remove_invalid_configs
// (local_shapes.h); never Partial. An alias expects its input in the placement it outputs (the edge
// into it is where a shared redistribution is paid). Factories create their output in any R/Shard
// layout (arange, iota and scalar_tensor: Replicate only).
//
//   [16,8192,4096] on 8x8: 16 combinations, S(0),S(0) invalid (16 -> 2 < 8): 15 options.

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

core::Result<RuleOutput> leaf_rule(const OpContext& ctx) {
  const bool alias = ctx.node.op == graph::OpKind::kAlias;
  RuleOutput out;
  out.rule = alias ? Rule::kAlias : Rule::kLeaf;
  if (ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'outputs': a leaf has one output, got " +
                                  std::to_string(ctx.num_outputs()));
  }
  for (Placements& p : leaf_options(ctx.out_shape(0), ctx.mesh)) {
    out.candidates.push_back(uniform_candidate(p, 1, ctx.num_inputs()));
  }
  return out;
}

core::Result<RuleOutput> factory_rule(const OpContext& ctx) {
  const graph::OpKind op = ctx.node.op;
  // arange, and the kOther factories other_rule() sends here (iota, scalar_tensor).
  const bool replicate_only = op == graph::OpKind::kArange || op == graph::OpKind::kOther;
  RuleOutput out;
  out.rule = Rule::kFactory;
  if (replicate_only || ctx.num_outputs() != 1) {
    out.candidates.push_back(
        uniform_candidate(all_replicate(ctx.mesh_ndim()), ctx.num_outputs(), ctx.num_inputs()));
    return out;
  }
  for (Placements& p : leaf_options(ctx.out_shape(0), ctx.mesh)) {
    Candidate c;
    c.outputs.push_back(std::move(p));
    c.inputs.assign(ctx.num_inputs(), all_replicate(ctx.mesh_ndim()));
    out.candidates.push_back(std::move(c));
  }
  return out;
}

}  // namespace dtplan::strategy::ops
