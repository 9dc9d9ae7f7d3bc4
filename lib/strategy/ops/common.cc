// Helpers shared by the family rules (ops.h).

#include <string>

#include "graph/shape_infer.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

std::vector<Placements> OpContext::producer_options(std::size_t slot) const {
  if (slot < producers.size() && !producers[slot].empty()) return producers[slot];
  return leaf_options(in_shape(slot), mesh);
}

std::vector<Placements> leaf_options(const graph::Shape& shape,
                                     std::span<const std::int64_t> mesh) {
  // Per mesh dim: R, S(0), ..., S(rank-1); product order with mesh dim 0 slowest.
  const std::size_t per_dim = shape.size() + 1;
  std::vector<Placements> out;
  std::vector<std::size_t> pick(mesh.size(), 0);
  Placements current(mesh.size());
  while (true) {
    for (std::size_t k = 0; k < mesh.size(); ++k) {
      current[k] = pick[k] == 0 ? Placement::replicate()
                                : Placement::shard(static_cast<std::int32_t>(pick[k] - 1));
    }
    if (shardable(shape, current, mesh)) out.push_back(current);
    std::size_t k = mesh.size();
    while (k-- > 0) {
      if (++pick[k] < per_dim) break;
      pick[k] = 0;
    }
    if (k == static_cast<std::size_t>(-1)) break;
  }
  return out;
}

core::Result<RuleOutput> expand(Rule rule, std::span<const DimRow> rows, const OpContext& ctx) {
  DTPLAN_TRY(std::vector<Candidate> candidates,
             expand_rows(rows, ctx.mesh_ndim(), "strategy expansion"));
  RuleOutput out;
  out.rule = rule;
  out.candidates = std::move(candidates);
  return out;
}

Placement broadcast_to_input(const Placement& out_p, const graph::Shape& out,
                             const graph::Shape& in) {
  if (!out_p.is_shard_like()) return out_p;
  const std::int64_t d =
      out_p.dim() - static_cast<std::int64_t>(out.size()) + static_cast<std::int64_t>(in.size());
  if (d < 0 || (in[d] == 1 && out[out_p.dim()] != 1)) return Placement::replicate();
  return moved_to(out_p, d);
}

core::Result<std::vector<std::int64_t>> dims_attr(const graph::Node& node, std::string_view name,
                                                  std::size_t rank, bool fallback_all) {
  std::vector<std::int64_t> dims;
  if (node.attrs.contains(name)) {
    DTPLAN_TRY(dims, node.attrs.get_int_list(name));
  }
  if (dims.empty() && fallback_all) {
    for (std::size_t d = 0; d < rank; ++d) dims.push_back(static_cast<std::int64_t>(d));
    return dims;
  }
  for (std::int64_t& d : dims) {
    DTPLAN_TRY(d, graph::normalize_dim(d, rank, graph::attr_field(name)));
  }
  return dims;
}

RuleOutput replicate_rule(const OpContext& ctx) {
  RuleOutput out;
  out.rule = Rule::kReplicate;
  out.candidates.push_back(
      uniform_candidate(all_replicate(ctx.mesh_ndim()), ctx.num_outputs(), ctx.num_inputs()));
  return out;
}

std::string_view aten_base_name(std::string_view target) {
  if (target.starts_with("aten.")) target.remove_prefix(5);
  if (const std::size_t dot = target.find('.'); dot != std::string_view::npos) {
    target = target.substr(0, dot);
  }
  return target;
}

}  // namespace dtplan::strategy::ops
