// _softmax and _softmax_backward_data (docs/reference/strategy_selection.md §2.8; AutoParallel
// keeps _softmax whole).
//
// Forward: one strategy per producer option: shards of the softmax dim and every Partial are
// replicated; the output takes that input placement.
// Backward (grad_output, output): the same structure over the options of both producers, grad's
// options first, then the output's (DTensor pairs the two lists index by index and keeps the
// more sharded one, which depends on how the producers happen to be ordered; dtplan takes the
// union instead, de-duplicated). Both inputs and the output take the mapped placement. The
// backward is not a follower (its strategies come from two producers).

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

core::Result<RuleOutput> softmax_rule(const OpContext& ctx) {
  const bool backward = ctx.node.op == graph::OpKind::kSoftmaxBackward;
  const std::size_t want = backward ? 2 : 1;
  if (ctx.num_inputs() != want || ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'inputs': softmax needs " + std::to_string(want) +
                                  " input(s)");
  }
  DTPLAN_TRY(std::int64_t dim, ctx.node.attrs.get_int("dim"));
  DTPLAN_TRY(dim, graph::normalize_dim(dim, ctx.in_shape(0).size(), graph::attr_field("dim")));
  auto map = [dim, want](const Placements& src) -> std::optional<Candidate> {
    Placements tgt = replicate_if(
        src, [dim](const Placement& p) { return p.is_partial() || shards_dim(p, dim); });
    return uniform_candidate(tgt, 1, want);
  };
  if (!backward) return follow(Rule::kSoftmax, ctx, 0, map);
  RuleOutput out = follow(Rule::kSoftmax, ctx, 0, map);
  RuleOutput second = follow(Rule::kSoftmax, ctx, 1, map);
  for (Candidate& c : second.candidates) out.candidates.push_back(std::move(c));
  for (Candidate& c : out.candidates) c.source = -1;
  out.follows_slot = -1;
  out.producer_count = 0;
  return out;
}

}  // namespace dtplan::strategy::ops
