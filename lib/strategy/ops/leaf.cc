// Leaves (docs/reference/strategy_selection.md §2.2): placeholders (parameters, buffers, inputs,
// tangents) and alias nodes offer every combination of {R, S(0), ..., S(nd-1)} per mesh dim that
// passes remove_invalid_configs (local_shapes.h); never Partial. An alias expects its input in the
// placement it outputs (the edge into it is where a shared redistribution is paid). Factories
// create their output in any R/Shard layout (arange, iota and scalar_tensor: Replicate only).
//
//   [16,8192,4096] on 8x8: 16 combinations, S(0),S(0) invalid (16 -> 2 < 8): 15 options.

#include <optional>

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

namespace {

// EnumerateOptions::strided_params: the layout of `p` with the last of the mesh dims that shard
// one tensor dim splitting first and the others after it in mesh order (each _S(d, size of the
// last)), or nothing when no tensor dim has two (or, with `many`, two or more) such mesh dims.
// Example: S(0),S(0) on (2,4) -> _S(0,4),S(0); S(0),S(0),S(0) on (2,2,4) -> S(0),_S(0,4),S(0),
// or with `many` _S(0,4),_S(0,4),S(0) (FSDP over dp_shard x cp of a weight TP shards on dim 0).
std::optional<Placements> strided_variant(const Placements& p, std::span<const std::int64_t> mesh,
                                          bool many) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!p[i].is_shard()) continue;
    std::vector<std::size_t> same;
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      if (p[j].is_shard_like() && p[j].dim() == p[i].dim()) same.push_back(j);
    }
    if (same.empty() || (same.size() > 1 && !many)) continue;
    Placements out = p;
    const std::int64_t sf = mesh[same.back()];
    out[i] = Placement::strided_shard(p[i].dim(), sf);
    for (std::size_t k = 0; k + 1 < same.size(); ++k) {
      out[same[k]] = Placement::strided_shard(p[i].dim(), sf);
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

core::Result<RuleOutput> leaf_rule(const OpContext& ctx) {
  const bool alias = ctx.node.op == graph::OpKind::kAlias;
  RuleOutput out;
  out.rule = alias ? Rule::kAlias : Rule::kLeaf;
  if (ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'outputs': a leaf has one output, got " +
                                  std::to_string(ctx.num_outputs()));
  }
  std::vector<Placements> options = leaf_options(ctx.out_shape(0), ctx.mesh);
  const bool strided = ctx.options.strided_params && (ctx.node.role == core::OpRole::kParam ||
                                                      ctx.node.role == core::OpRole::kGrad);
  if (strided) {
    const std::size_t plain = options.size();
    for (std::size_t k = 0; k < plain; ++k) {
      // Three-way FSDP x TP layouts only with context parallel (FSDP over dp_shard x cp), so
      // other plans' option lists stay as they were.
      const bool many = !ctx.options.context_parallel_dims.empty();
      if (auto s = strided_variant(options[k], ctx.mesh, many)) options.push_back(std::move(*s));
    }
  }
  for (Placements& p : options) {
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
