// einsum (lib/strategy/ops/einsum.cc).

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

OpStrategy einsum(const std::string& eq, std::vector<TensorMeta> in,
                  std::vector<std::int64_t> mesh) {
  return run_op(OpKind::kEinsum, std::move(in), {{"equation", eq}}, std::move(mesh));
}

// docs/reference/strategy_selection.md §2.3, §2.12
TEST_CASE("einsum: the three linear forms have 24 strategies on 8x8") {
  const std::vector<std::int64_t> mesh = {8, 8};
  const TensorMeta x = bf16({16, 8192, 4096}), w = bf16({4096, 4096});
  OpStrategy fwd = einsum("abk,kn->abn", {x, w}, mesh);
  OpStrategy grad_in = einsum("abn,nk->abk", {x, w}, mesh);
  OpStrategy grad_w = einsum("abn,abk->kn", {x, x}, mesh);
  CHECK(fwd.rule == Rule::kEinsum);
  CHECK(fwd.size() == 24);
  CHECK(grad_in.size() == 24);
  CHECK(grad_w.size() == 24);
  // Rows R, a, b, k, n; (a, a) is the invalid S(0),S(0) (16 -> 2 < 8).
  CHECK(format_strategy(fwd.strategies[1]) == "R,S(0) <- R,S(0); R,R");
  CHECK(format_strategy(fwd.strategies[3]) == "R,P(sum) <- R,S(2); R,S(0)");
  CHECK(format_strategy(fwd.strategies[5]) == "S(0),R <- S(0),R; R,R");
  CHECK(format_strategy(fwd.strategies[6]) == "S(0),S(1) <- S(0),S(1); R,R");
  // The study's worked example: batch on dp, N on tp.
  CHECK(has_strategy(fwd, {"S(0),S(2)"}, {"S(0),R", "R,S(1)"}));
  // grad-W: a and b contract into Partials; n and k shard the [k,n] output.
  CHECK(has_strategy(grad_w, {"P(sum),P(sum)"}, {"S(0),S(1)", "S(0),S(1)"}));
  CHECK(has_strategy(grad_w, {"S(1),S(0)"}, {"S(2),R", "R,S(2)"}));
  CHECK_FALSE(has_strategy(grad_w, {"P(sum),P(sum)"}, {"S(0),S(0)", "S(0),S(0)"}));
  // grad-input: n contracts.
  CHECK(has_strategy(grad_in, {"S(0),P(sum)"}, {"S(0),S(2)", "R,S(0)"}));
  // No strategy reads a Partial input (AutoParallel #489).
  for (const OpStrategy* op : {&fwd, &grad_in, &grad_w}) {
    for (const Strategy& s : op->strategies) {
      for (const Placements& in : s.inputs) {
        for (const placement::Placement& p : in) CHECK_FALSE(p.is_partial());
      }
    }
  }
}

TEST_CASE("einsum: rows follow the labels' first appearance") {
  OpStrategy op = einsum("abk,kn->abn", {bf16({2, 4, 6}), bf16({6, 8})}, {2});
  CHECK(formatted(op) == Texts{"R <- R; R", "S(0) <- S(0); R", "S(1) <- S(1); R",
                               "P(sum) <- S(2); S(0)", "S(2) <- R; S(1)"});
}

TEST_CASE("einsum: ellipsis, broadcast operands, diagonals, single operands") {
  // "...k,kn->...n" names the ellipsis dims A, B (uppercase first).
  OpStrategy ell = einsum("...k,kn->...n", {bf16({4, 6, 8}), bf16({8, 2})}, {2});
  CHECK(formatted(ell) == formatted(einsum("ABk,kn->ABn", {bf16({4, 6, 8}), bf16({8, 2})}, {2})));
  // A broadcast operand dim (size 1) is read replicated.
  OpStrategy bc = einsum("bij,bjk->bik", {bf16({1, 4, 6}), bf16({3, 6, 2})}, {3});
  CHECK(has_strategy(bc, {"S(0)"}, {"R", "S(0)"}));
  // A label repeated in one operand gets no row.
  CHECK(formatted(einsum("ii->i", {bf16({4, 4})}, {2})) == Texts{"R <- R"});
  // One operand: a kept label shards the output, a summed one makes it Partial.
  OpStrategy sum = einsum("ij->i", {bf16({4, 6})}, {2});
  CHECK(formatted(sum) == Texts{"R <- R", "S(0) <- S(0)", "P(sum) <- S(1)"});
}

TEST_CASE("einsum: a bad equation is bad input naming the node and attribute") {
  auto r = try_op(OpKind::kEinsum, {bf16({4, 6})}, {{"equation", std::string("ij,jk->ik")}}, {2},
                  {}, {}, {bf16({4, 6})});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.starts_with("node 'op': field 'attrs'.'equation'"));
}

}  // namespace
}  // namespace dtplan::strategy::testing
