// Scaled dot-product attention, forward and backward, every kernel (flash, efficient, cuDNN;
// docs/reference/strategy_selection.md §2.11). Tensors are [batch, heads, seq, dim];
// single-mesh-dim rows: R; heads (S(1) on every input and output of rank >= 2); batch (S(0) on the
// same). Scalars and 1-d extras (RNG seed and offset, cum_seq) stay R, as does a dim a tensor
// broadcasts (size 1, e.g. an attention bias [B,1,S,S] under the heads row). On the mesh dims of
// EnumerateOptions::context_parallel_dims only (a torchtitan `cp` dim), a sequence row: ring
// attention with the all-gather rotate method (docs/reference/torchtitan.md §4). Forward: q, output
// and lse S(2), k and v R (the edge that gathers them is the ring's K/V all-gather). Backward:
// grad_out, q, out, lse and dq S(2), k and v R (the backward gathers K/V again), dk and dv P(sum)
// (their reduce-scatter stands in for the dK/dV ring; docs/parallelize.md gives the byte
// difference). With grouped-query attention (k/v with fewer heads than q) a heads split must divide
// both head counts on every mesh dim that splits them, or q heads would meet the wrong k/v heads;
// uneven head splits are dropped there.
//
//   q, k, v [16,32,8192,128] on 8x8: 9 combinations; S(0),S(0) (16 -> 2) and S(1),S(1)
//   (32 -> 4) are invalid: 7 strategies.

#include <algorithm>

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {
namespace {

// The placement a tensor of `shape` takes in a row that shards `dim` of a reference of size
// `ref`.
Placement row_placement(const graph::Shape& shape, std::size_t dim, std::int64_t ref) {
  if (shape.size() < 2 || (shape[dim] == 1 && ref > 1)) return Placement::replicate();
  return Placement::shard(static_cast<std::int32_t>(dim));
}

// Whether every mesh dim that splits heads divides both head counts evenly.
bool heads_split_evenly(const Candidate& c, std::int64_t q_heads, std::int64_t kv_heads,
                        std::size_t q_slot, std::span<const std::int64_t> mesh) {
  for (std::size_t k = 0; k < mesh.size(); ++k) {
    if (!shards_dim(c.inputs[q_slot][k], 1)) continue;
    if (q_heads % mesh[k] != 0 || kv_heads % mesh[k] != 0) return false;
    q_heads /= mesh[k];
    kv_heads /= mesh[k];
  }
  return true;
}

// The sequence row (ring attention on a cp dim): see the file comment.
DimRow sequence_row(const OpContext& ctx, bool forward, std::size_t q_slot, std::int64_t seq) {
  DimRow row;
  for (std::size_t o = 0; o < ctx.num_outputs(); ++o) {
    const bool grad_kv = !forward && (o == 1 || o == 2);
    row.outputs.push_back(grad_kv ? Placement::partial() : row_placement(ctx.out_shape(o), 2, seq));
  }
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    const bool kv = i == q_slot + 1 || i == q_slot + 2;
    row.inputs.push_back(kv ? Placement::replicate() : row_placement(ctx.in_shape(i), 2, seq));
  }
  return row;
}

// Whether `c` uses the sequence row (output 0 S(2)) on a mesh dim that is not context parallel.
bool sequence_off_cp(const Candidate& c, std::span<const std::int32_t> cp_dims) {
  for (std::size_t k = 0; k < c.outputs[0].size(); ++k) {
    if (!shards_dim(c.outputs[0][k], 2)) continue;
    if (std::find(cp_dims.begin(), cp_dims.end(), static_cast<std::int32_t>(k)) == cp_dims.end()) {
      return true;
    }
  }
  return false;
}

}  // namespace

core::Result<RuleOutput> attention_rule(const OpContext& ctx) {
  const bool forward = graph::is_sdpa_forward(ctx.node.op);
  const std::size_t q_slot = forward ? 0 : 1;
  if (ctx.num_inputs() < q_slot + 3 || ctx.num_outputs() == 0) {
    return core::Error::bad_input("field 'inputs': attention needs q, k and v");
  }
  const graph::Shape& q = ctx.in_shape(q_slot);
  const graph::Shape& kv = ctx.in_shape(q_slot + 1);
  if (q.size() != 4 || kv.size() != 4 || ctx.in_shape(q_slot + 2).size() != 4) {
    return core::Error::bad_input("field 'inputs': attention needs 4-d q, k, v, got q " +
                                  graph::format_shape(q));
  }
  const Placement kR = Placement::replicate();
  std::vector<DimRow> rows = {{std::vector<Placement>(ctx.num_outputs(), kR),
                               std::vector<Placement>(ctx.num_inputs(), kR)}};
  for (std::size_t dim : {std::size_t{1}, std::size_t{0}}) {  // heads, then batch
    DimRow row;
    for (std::size_t o = 0; o < ctx.num_outputs(); ++o) {
      row.outputs.push_back(row_placement(ctx.out_shape(o), dim, q[dim]));
    }
    for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
      row.inputs.push_back(row_placement(ctx.in_shape(i), dim, q[dim]));
    }
    rows.push_back(std::move(row));
  }
  const std::span<const std::int32_t> cp_dims = ctx.options.context_parallel_dims;
  if (!cp_dims.empty()) rows.push_back(sequence_row(ctx, forward, q_slot, q[2]));
  DTPLAN_TRY(RuleOutput out, expand(Rule::kAttention, rows, ctx));
  if (!cp_dims.empty()) {
    std::erase_if(out.candidates, [&](const Candidate& c) { return sequence_off_cp(c, cp_dims); });
  }
  if (q[1] != kv[1]) {
    std::erase_if(out.candidates, [&](const Candidate& c) {
      return !heads_split_evenly(c, q[1], kv[1], q_slot, ctx.mesh);
    });
  }
  return out;
}

}  // namespace dtplan::strategy::ops
