// Reductions (docs/reference/strategy_selection.md §2.7): one strategy per producer option.
//
// Linear reductions (sum -> P(sum), mean -> P(avg), amax -> P(max), amin -> P(min)): a shard of a
// reduced dim becomes that Partial on the output; shards of kept dims are renumbered (reduced
// dims drop out unless keepdim). A Partial input passes through when the reduction commutes with
// it (sum, mean: P(sum) and P(avg); amax: P(max); amin: P(min)); any other Partial is first
// replicated. mean is linear over a sharded dim only if every rank holds the same number of
// elements there, so an uneven shard of a reduced dim is replicated first (decided per option:
// PyTorch's reduction_linear flag leaked from one option to the next, #462; dtplan does not).
// amax and amin need every rank to hold part of each reduced dim (an empty piece has no max), so
// a split that leaves some rank an empty piece (torch.chunk: [4] over 3 is 2,2,0) is replicated.
//
// Non-linear reductions (kOther targets var, std, var_mean, prod, logsumexp, argmax, argmin,
// cumsum): reduced dims and Partials are replicated first, other shards renumbered.
//
//   mean(dim=-1, keepdim) of [16,8192,4096] with S(0),S(2) on 8x8 -> S(0),P(avg) on [16,8192,1].

#include <algorithm>
#include <set>

#include "graph/op_kind.h"
#include "placement/chunk.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {
namespace {

using K = graph::OpKind;
using placement::ReduceOp;

struct ReductionSpec {
  std::vector<bool> reduced;  // per input dim
  bool keepdim = false;
  bool linear = true;
  ReduceOp op = ReduceOp::kSum;
};

bool passes_partial(const ReductionSpec& r, ReduceOp partial) {
  if (!r.linear) return false;
  if (r.op == ReduceOp::kSum || r.op == ReduceOp::kAvg) {
    return partial == ReduceOp::kSum || partial == ReduceOp::kAvg;
  }
  return partial == r.op;
}

// Whether every rank keeps a non-empty piece of every reduced dim (amax/amin of an empty piece
// is an error in PyTorch, and a P(max) holder with nothing to reduce has no value). The distinct
// lengths reachable after each split are tracked; past 64 of them the answer is no.
bool reduced_pieces_nonempty(const ReductionSpec& r, const graph::Shape& shape,
                             const Placements& src, std::span<const std::int64_t> mesh) {
  std::vector<std::set<std::int64_t>> lengths(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) lengths[d] = {shape[d]};
  for (std::size_t k = 0; k < src.size(); ++k) {
    const Placement& p = src[k];
    if (!p.is_shard_like()) continue;
    const auto d = static_cast<std::size_t>(p.dim());
    std::set<std::int64_t> next;
    for (std::int64_t length : lengths[d]) {
      for (std::int64_t i = 0; i < mesh[k]; ++i)
        next.insert(placement::split_length(p, length, mesh[k], i));
    }
    if (r.reduced[d] && (next.count(0) > 0 || next.size() > 64)) return false;
    lengths[d] = std::move(next);
  }
  return true;
}

// Whether every shard of a reduced dim in `src` splits evenly (mean's linearity).
bool reduced_dims_even(const ReductionSpec& r, const graph::Shape& shape, const Placements& src,
                       std::span<const std::int64_t> mesh) {
  graph::Shape sizes = shape;
  for (std::size_t k = 0; k < src.size(); ++k) {
    const Placement& p = src[k];
    if (!p.is_shard_like()) continue;
    const auto d = static_cast<std::size_t>(p.dim());
    if (r.reduced[d] && sizes[d] % mesh[k] != 0) return false;
    sizes[d] = placement::split_length(p, sizes[d], mesh[k], 0);
  }
  return true;
}

core::Result<ReductionSpec> reduction_spec(const OpContext& ctx) {
  const graph::Node& node = ctx.node;
  const std::size_t rank = ctx.in_shape(0).size();
  ReductionSpec r;
  r.reduced.assign(rank, false);
  const bool cumulative = node.op == K::kOther && aten_base_name(node.target) == "cumsum";
  DTPLAN_TRY(std::vector<std::int64_t> dims, dims_attr(node, "dim", rank, !cumulative));
  for (std::int64_t d : dims) {
    if (rank > 0) r.reduced[static_cast<std::size_t>(d)] = true;
  }
  DTPLAN_TRY(r.keepdim, node.attrs.get_bool_or("keepdim", false));
  switch (node.op) {
    case K::kSum:
      r.op = ReduceOp::kSum;
      break;
    case K::kMean:
      r.op = ReduceOp::kAvg;
      break;
    case K::kAmax:
      r.op = ReduceOp::kMax;
      break;
    case K::kAmin:
      r.op = ReduceOp::kMin;
      break;
    default:
      r.linear = false;
      // Output rank tells whether reduced dims stay (cumsum keeps every dim).
      r.keepdim = cumulative || (ctx.num_outputs() > 0 && ctx.out_shape(0).size() == rank);
  }
  return r;
}

}  // namespace

core::Result<RuleOutput> reduction_rule(const OpContext& ctx) {
  if (ctx.num_inputs() != 1 || ctx.num_outputs() == 0) {
    return core::Error::bad_input("field 'inputs': a reduction has one input");
  }
  DTPLAN_TRY(ReductionSpec r, reduction_spec(ctx));
  const graph::Shape& shape = ctx.in_shape(0);
  // Output dim of each kept input dim.
  std::vector<std::int64_t> out_dim(shape.size(), -1);
  for (std::size_t d = 0, o = 0; d < shape.size(); ++d) {
    if (!r.reduced[d] || r.keepdim) out_dim[d] = static_cast<std::int64_t>(o++);
  }
  const std::span<const std::int64_t> mesh = ctx.mesh;
  const std::size_t n_out = ctx.num_outputs();
  return follow(Rule::kReduction, ctx, 0, [&](const Placements& src) -> std::optional<Candidate> {
    const bool extremum = r.op == ReduceOp::kMax || r.op == ReduceOp::kMin;
    const bool linear = r.linear &&
                        (r.op != ReduceOp::kAvg || reduced_dims_even(r, shape, src, mesh)) &&
                        (!extremum || reduced_pieces_nonempty(r, shape, src, mesh));
    Candidate c;
    c.inputs.push_back(src);
    Placements out(src.size());
    for (std::size_t k = 0; k < src.size(); ++k) {
      Placement& in = c.inputs[0][k];
      if (in.is_partial()) {
        if (!linear || !passes_partial(r, in.reduce_op())) in = Placement::replicate();
      } else if (in.is_shard_like() && r.reduced[static_cast<std::size_t>(in.dim())]) {
        if (linear) {
          out[k] = Placement::partial(r.op);
          continue;
        }
        in = Placement::replicate();
      }
      out[k] = in.is_shard_like() ? moved_to(in, out_dim[static_cast<std::size_t>(in.dim())]) : in;
    }
    c.outputs.assign(n_out, out);
    return c;
  });
}

}  // namespace dtplan::strategy::ops
