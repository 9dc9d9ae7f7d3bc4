// Tuple producers and readers (docs/reference/strategy_selection.md §2.10): getitem, split,
// split_with_sizes, cat.
//   getitem   one strategy per option of the tuple element it reads (the producer's output
//             `index`): input = output = that placement (an identity; AutoParallel charges the
//             redistribution from the producer's tuple element)
//   split     one strategy per producer option: shards of the split dim replicated (AutoParallel
//             bans them), every output and the input take the result. Partial passes (a split is
//             linear; AutoParallel also bans Partial inputs, which only forces an earlier
//             reduction)
//   cat       the options of every input's producer, slot by slot (de-duplicated): shards of the
//             cat dim replicated, Partial kept; every input and the output take the result; a
//             legacy empty 1-d input ([0]) is read replicated. Not a follower (several producers).

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

core::Result<RuleOutput> tuple_rule(const OpContext& ctx) {
  const graph::Node& node = ctx.node;
  if (ctx.num_inputs() == 0 || ctx.num_outputs() == 0) {
    return core::Error::bad_input("field 'inputs': " + std::string(graph::op_name(node.op)) +
                                  " needs inputs and outputs");
  }
  if (node.op == graph::OpKind::kGetitem) {
    return follow(Rule::kTuple, ctx, 0, [](const Placements& src) -> std::optional<Candidate> {
      return uniform_candidate(src, 1, 1);
    });
  }
  const std::size_t rank = ctx.out_shape(0).size();
  DTPLAN_TRY(std::int64_t dim, node.attrs.get_int_or("dim", 0));
  DTPLAN_TRY(dim,
             graph::normalize_dim(dim, std::max<std::size_t>(rank, 1), graph::attr_field("dim")));
  auto target = [dim](const Placements& src) {
    return replicate_if(src, [dim](const Placement& p) { return shards_dim(p, dim); });
  };
  if (node.op != graph::OpKind::kCat) {  // split, split_with_sizes
    const std::size_t n_out = ctx.num_outputs();
    return follow(Rule::kTuple, ctx, 0, [&](const Placements& src) -> std::optional<Candidate> {
      return uniform_candidate(target(src), n_out, 1);
    });
  }
  RuleOutput out;
  out.rule = Rule::kTuple;
  const Placements replicated = all_replicate(ctx.mesh_ndim());
  for (std::size_t slot = 0; slot < ctx.num_inputs(); ++slot) {
    if (ctx.in_shape(slot).size() != rank) continue;  // a legacy empty input
    for (const Placements& src : ctx.producer_options(slot)) {
      Candidate c = uniform_candidate(target(src), 1, ctx.num_inputs());
      for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
        if (ctx.in_shape(i).size() != rank) c.inputs[i] = replicated;
      }
      out.candidates.push_back(std::move(c));
    }
  }
  if (out.candidates.empty()) out.candidates.push_back(replicate_rule(ctx).candidates[0]);
  return out;
}

}  // namespace dtplan::strategy::ops
