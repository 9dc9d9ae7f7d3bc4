// embedding and embedding_dense_backward (docs/reference/strategy_selection.md §2.9; AutoParallel
// keeps the backward whole).
//
// embedding(weight [V,D], indices [*]) -> [*, D], single-mesh-dim rows [out ; weight, indices]:
//   R;  colwise [S(last) ; S(1), R];  rowwise (vocab parallel) [P(sum)* ; S(0), R];
//   batch, for each index dim d in order: [S(d) ; R, S(d)]
// P(sum)* is DTensor's _MaskPartial, kept as P(sum) plus Strategy::masked_partial: each rank looks
// up the indices inside its vocab shard and writes zeros for the rest, so the ranks' outputs sum
// to the true embedding and the pending reduction is a plain all-reduce or reduce-scatter.
// DTensor also marks the indices _MaskPartial, a local offset-and-mask step that dtplan folds
// into the embedding kernel, so the indices are read replicated.
//
// embedding_dense_backward(grad [*, D], indices [*]) -> [V, D], rows [out ; grad, indices]:
//   R;  colwise [S(1) ; S(last), R];  batch, for each index dim d: [P(sum) ; S(d), S(d)];
//   partial [P(sum) ; P(sum), R]
//
//   tokens [16,8192] into [128256,4096] on 8x8: 5 rows, 25 combinations, S(0),S(0) invalid: 24.

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

core::Result<RuleOutput> embedding_rule(const OpContext& ctx) {
  if (ctx.num_inputs() != 2 || ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'inputs': embedding needs (weight or grad, indices)");
  }
  const bool backward = ctx.node.op == graph::OpKind::kEmbeddingDenseBackward;
  const std::size_t idx_rank = ctx.in_shape(1).size();
  const auto last = static_cast<std::int32_t>(idx_rank);  // the embedding dim of out / grad
  const Placement kR = Placement::replicate(), kP = Placement::partial();
  auto S = [](std::size_t d) { return Placement::shard(static_cast<std::int32_t>(d)); };
  std::vector<DimRow> rows = {{{kR}, {kR, kR}}};
  if (!backward) {
    rows.push_back({{S(last)}, {S(1), kR}});
    rows.push_back({{kP}, {S(0), kR}, true});
    for (std::size_t d = 0; d < idx_rank; ++d) rows.push_back({{S(d)}, {kR, S(d)}});
  } else {
    rows.push_back({{S(1)}, {S(last), kR}});
    for (std::size_t d = 0; d < idx_rank; ++d) rows.push_back({{kP}, {S(d), S(d)}});
    rows.push_back({{kP}, {kP, kR}});
  }
  return expand(Rule::kEmbedding, rows, ctx);
}

}  // namespace dtplan::strategy::ops
