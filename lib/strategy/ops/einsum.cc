// einsum (docs/reference/strategy_selection.md §2.3-2.4), the form every linear takes after
// AutoParallel's view->mm->view rewrite: forward "abk,kn->abn", grad-input "abn,nk->abk",
// grad-weight "abn,abk->kn".
//
// Single-mesh-dim rows: R first, then one row per label, labels in order of first appearance
// (operands left to right, then the output; AutoParallel's own row order is not recorded, so
// this is dtplan's documented tie-break order):
//   label in the output at position p: output S(p); else output P(sum) (a contracted label);
//   each operand holding the label at q: S(q), or R where that dim broadcasts (size 1 against a
//   larger size elsewhere); operands without the label: R.
// A label repeated within one operand (a diagonal) gets no row (one mesh dim cannot shard two
// dims of one tensor), nor does a contracted label that no operand can shard. No row has a
// Partial input (AutoParallel's rule #489 drops those).
//
//   "abk,kn->abn": R; a [S(0);S(0),R]; b [S(1);S(1),R]; k [P;S(2),S(0)]; n [S(2);R,S(1)].
//   On 8x8 with x [16,8192,4096]: 25 combinations, S(0),S(0) invalid (16 -> 2 < 8): 24.

#include <algorithm>
#include <array>

#include "strategy/einsum_labels.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {

core::Result<RuleOutput> einsum_rule(const OpContext& ctx) {
  DTPLAN_TRY(std::string equation, ctx.node.attrs.get_string("equation"));
  std::vector<const graph::Shape*> shapes;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(&ctx.in_shape(i));
  DTPLAN_TRY(EinsumLabels labels, expand_einsum(equation, shapes, graph::attr_field("equation")));
  if (ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'outputs': einsum has one output");
  }
  // Labels in order of first appearance, and each label's largest size.
  std::string order;
  std::array<std::int64_t, 128> size{};
  for (std::size_t i = 0; i < labels.operands.size(); ++i) {
    for (std::size_t q = 0; q < labels.operands[i].size(); ++q) {
      const char c = labels.operands[i][q];
      if (order.find(c) == std::string::npos) order += c;
      auto& s = size[static_cast<unsigned char>(c)];
      s = std::max(s, (*shapes[i])[q]);
    }
  }
  const Placement kR = Placement::replicate();
  std::vector<DimRow> rows = {DimRow{{kR}, std::vector<Placement>(ctx.num_inputs(), kR), false}};
  for (char c : order) {
    DimRow row;
    const std::size_t p = labels.output.find(c);
    row.outputs.push_back(p == std::string::npos ? Placement::partial()
                                                 : Placement::shard(static_cast<std::int32_t>(p)));
    bool usable = true, some_shard = false;
    for (std::size_t i = 0; i < labels.operands.size(); ++i) {
      const std::string& term = labels.operands[i];
      const std::size_t q = term.find(c);
      if (q == std::string::npos) {
        row.inputs.push_back(kR);
        continue;
      }
      if (term.find(c, q + 1) != std::string::npos) usable = false;
      const bool broadcast = (*shapes[i])[q] == 1 && size[static_cast<unsigned char>(c)] > 1;
      row.inputs.push_back(broadcast ? kR : Placement::shard(static_cast<std::int32_t>(q)));
      some_shard = some_shard || !broadcast;
    }
    if (usable && some_shard) rows.push_back(std::move(row));
  }
  return expand(Rule::kEinsum, rows, ctx);
}

}  // namespace dtplan::strategy::ops
