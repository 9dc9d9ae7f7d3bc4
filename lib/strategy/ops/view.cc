// View-like ops (docs/reference/strategy_selection.md §2.10): one strategy per producer option, as
// an identity on the data layout; the strategy's input is the option with the shards the view
// cannot carry replicated (the redistribution the edge pays), its output the carried placement.
// Replicate and Partial pass through (views are linear). Rules per op:
//   view, _unsafe_view, reshape   view_map.h (flatten of an inner shard -> _StridedShard)
//   view(dtype=...)               shards of the last dim replicated (AutoParallel bans them)
//   permute, transpose, t         shards follow their dim
//   expand                        a shard of an expanded (size-1) dim is replicated; new leading
//                                 dims are R; the rest shift right
//   squeeze / unsqueeze           dims renumbered; a shard of a removed dim is replicated
//   slice                         a shard of the sliced dim is replicated unless the slice keeps
//                                 the whole dim
//   select                        a shard of the selected dim is replicated; later dims shift
//   view_as_complex / view_as_real, _conj   the complex pair dim is never sharded; else identity
// Options that end up invalid on the output (e.g. [16,8192,4096] with S(2),S(2) viewed as
// [16,8192,32,128]: 32 -> 4 < 8) are dropped, duplicates merged, so a view of the 24-option wq
// einsum has 23 strategies (docs/reference/strategy_selection.md §2.12).

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"
#include "strategy/view_map.h"

namespace dtplan::strategy::ops {
namespace {

using K = graph::OpKind;

// Carries `src` along `to_out` (input dim -> output dim, -1: must be replicated).
Candidate carry(const Placements& src, const std::vector<std::int64_t>& to_out) {
  Candidate c;
  c.inputs.push_back(src);
  Placements out(src.size());
  for (std::size_t k = 0; k < src.size(); ++k) {
    Placement& in = c.inputs[0][k];
    if (in.is_shard_like()) {
      const std::int64_t o = to_out[static_cast<std::size_t>(in.dim())];
      if (o < 0) in = Placement::replicate();
      out[k] = o < 0 ? in : moved_to(in, o);
    } else {
      out[k] = in;
    }
  }
  c.outputs.push_back(std::move(out));
  return c;
}

core::Result<std::vector<std::int64_t>> dim_map(const OpContext& ctx) {
  const graph::Node& node = ctx.node;
  const graph::Shape& in = ctx.in_shape(0);
  const graph::Shape& out = ctx.out_shape(0);
  const std::size_t rank = in.size();
  std::vector<std::int64_t> map(rank);
  for (std::size_t d = 0; d < rank; ++d) map[d] = static_cast<std::int64_t>(d);
  auto field = [](std::string_view name) { return graph::attr_field(name); };
  switch (node.op) {
    case K::kView:
    case K::kReshape:
    case K::kUnsafeView:  // view(dtype=...): the last dim is reinterpreted
      if (rank > 0) map[rank - 1] = -1;
      return map;
    case K::kPermute: {
      DTPLAN_TRY(std::vector<std::int64_t> dims, node.attrs.get_ints("dims"));
      if (dims.size() != rank) return core::Error::bad_input(field("dims") + ": wrong length");
      for (std::size_t i = 0; i < rank; ++i) {
        DTPLAN_TRY(std::int64_t d, graph::normalize_dim(dims[i], rank, field("dims")));
        map[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(i);
      }
      return map;
    }
    case K::kTranspose: {
      if (rank == 0) return map;
      DTPLAN_TRY(std::int64_t a, node.attrs.get_int("dim0"));
      DTPLAN_TRY(std::int64_t b, node.attrs.get_int("dim1"));
      DTPLAN_TRY(a, graph::normalize_dim(a, rank, field("dim0")));
      DTPLAN_TRY(b, graph::normalize_dim(b, rank, field("dim1")));
      std::swap(map[static_cast<std::size_t>(a)], map[static_cast<std::size_t>(b)]);
      return map;
    }
    case K::kT:
      if (rank == 2) std::swap(map[0], map[1]);
      return map;
    case K::kExpand: {
      const std::int64_t lead =
          static_cast<std::int64_t>(out.size()) - static_cast<std::int64_t>(rank);
      if (lead < 0) return core::Error::bad_input("field 'outputs': expand lowers the rank");
      for (std::size_t d = 0; d < rank; ++d) {
        const bool expanded = in[d] == 1 && out[d + static_cast<std::size_t>(lead)] != 1;
        map[d] = expanded ? -1 : static_cast<std::int64_t>(d) + lead;
      }
      return map;
    }
    case K::kSqueeze: {
      // squeeze(dim=...) drops the listed size-1 dims (an empty list: none); squeeze() all.
      DTPLAN_TRY(std::vector<std::int64_t> dims,
                 dims_attr(node, "dim", rank, !node.attrs.contains("dim")));
      std::vector<bool> drop(rank, false);
      for (std::int64_t d : dims)
        drop[static_cast<std::size_t>(d)] = in[static_cast<std::size_t>(d)] == 1;
      for (std::size_t d = 0, o = 0; d < rank; ++d)
        map[d] = drop[d] ? -1 : static_cast<std::int64_t>(o++);
      return map;
    }
    case K::kUnsqueeze: {
      DTPLAN_TRY(std::int64_t at, node.attrs.get_int("dim"));
      DTPLAN_TRY(at, graph::normalize_dim(at, rank + 1, field("dim")));
      for (std::size_t d = 0; d < rank; ++d) map[d] += static_cast<std::int64_t>(d) >= at ? 1 : 0;
      return map;
    }
    case K::kSlice: {
      if (rank == 0) return map;
      DTPLAN_TRY(std::int64_t d, node.attrs.get_int_or("dim", 0));
      DTPLAN_TRY(d, graph::normalize_dim(d, rank, field("dim")));
      // The output keeps the whole dim only if the slice is the identity on it.
      DTPLAN_TRY(std::int64_t step, node.attrs.get_int_or("step", 1));
      const auto dd = static_cast<std::size_t>(d);
      if (out[dd] != in[dd] || step != 1) map[dd] = -1;
      return map;
    }
    case K::kSelect: {
      if (rank == 0) return map;
      DTPLAN_TRY(std::int64_t at, node.attrs.get_int("dim"));
      DTPLAN_TRY(at, graph::normalize_dim(at, rank, field("dim")));
      for (std::size_t d = 0; d < rank; ++d) {
        const auto sd = static_cast<std::int64_t>(d);
        map[d] = sd == at ? -1 : sd - (sd > at ? 1 : 0);
      }
      return map;
    }
    case K::kViewAsComplex:
      if (rank > 0) map[rank - 1] = -1;
      return map;
    default:  // view_as_real, _conj: identity on the input's dims
      return map;
  }
}

}  // namespace

core::Result<RuleOutput> view_rule(const OpContext& ctx) {
  if (ctx.num_inputs() != 1 || ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'inputs': a view has one input and one output");
  }
  const graph::Node& node = ctx.node;
  const bool reshape =
      (node.op == K::kView || node.op == K::kReshape || node.op == K::kUnsafeView) &&
      !(node.attrs.contains("dtype") && !node.attrs.contains("size"));
  if (reshape) {
    const graph::Shape& from = ctx.in_shape(0);
    const graph::Shape& to = ctx.out_shape(0);
    DTPLAN_TRY(std::vector<ViewGroup> groups, view_groups(from, to));
    const std::span<const std::int64_t> mesh = ctx.mesh;
    return follow(Rule::kView, ctx, 0, [&](const Placements& src) -> std::optional<Candidate> {
      ViewPlacements vp = propagate_view(from, to, groups, src, mesh);
      Candidate c;
      c.inputs.push_back(std::move(vp.input));
      c.outputs.push_back(std::move(vp.output));
      return c;
    });
  }
  DTPLAN_TRY(std::vector<std::int64_t> map, dim_map(ctx));
  for (std::int64_t o : map) {
    if (o >= static_cast<std::int64_t>(ctx.out_shape(0).size())) {
      return core::Error::bad_input("field 'outputs': " + graph::format_shape(ctx.out_shape(0)) +
                                    " does not fit " + std::string(graph::op_name(node.op)) +
                                    " of " + graph::format_shape(ctx.in_shape(0)));
    }
  }
  return follow(Rule::kView, ctx, 0,
                [&](const Placements& src) -> std::optional<Candidate> { return carry(src, map); });
}

}  // namespace dtplan::strategy::ops
