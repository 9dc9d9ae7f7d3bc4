// The mm family (lib/strategy/ops/matmul.cc).

#include <doctest/doctest.h>

#include "graph/graph_builder.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

// docs/reference/strategy_selection.md §2.3
TEST_CASE("mm: 16 strategies on 8x8 with LLaMA3-8B shapes, in product order") {
  // The mm path of a linear: x flattened to [B*S, D] times the [D, D] weight.
  OpStrategy op = run_op(OpKind::kMm, {bf16({131072, 4096}), bf16({4096, 4096})}, {}, {8, 8});
  CHECK(op.rule == Rule::kMatmul);
  REQUIRE(op.size() == 16);
  CHECK(format_strategy(op.strategies[0]) == "R,R <- R,R; R,R");
  CHECK(format_strategy(op.strategies[1]) == "R,S(0) <- R,S(0); R,R");
  CHECK(format_strategy(op.strategies[5]) == "S(0),S(0) <- S(0),S(0); R,R");
  CHECK(format_strategy(op.strategies[6]) == "S(0),S(1) <- S(0),R; R,S(1)");
  CHECK(format_strategy(op.strategies[11]) == "S(1),P(sum) <- R,S(1); S(1),S(0)");
  CHECK(format_strategy(op.strategies[15]) == "P(sum),P(sum) <- S(1),S(1); S(0),S(0)");
}

TEST_CASE("mm: single-dim rows on a small mesh; invalid rows removed") {
  // [4,6] x [6,2] on (4,): N (2 < 4) is invalid.
  OpStrategy op = run_op(OpKind::kMm, {bf16({4, 6}), bf16({6, 2})}, {}, {4});
  CHECK(formatted(op) == Texts{"R <- R; R", "S(0) <- S(0); R", "P(sum) <- S(1); S(0)"});
  CHECK(op.strategies[1].local_output_shapes == std::vector<graph::Shape>{{1, 2}});
  CHECK(op.strategies[2].local_output_shapes == std::vector<graph::Shape>{{4, 2}});  // partial
}

TEST_CASE("bmm: batch, M, N and K rows") {
  OpStrategy op = run_op(OpKind::kBmm, {bf16({8, 4, 6}), bf16({8, 6, 2})}, {}, {2});
  CHECK(formatted(op) == Texts{"R <- R; R", "S(0) <- S(0); S(0)", "S(1) <- S(1); R",
                               "S(2) <- R; S(2)", "P(sum) <- S(2); S(1)"});
  // On (2,2), N twice splits n = 2 -> 1 < 2: 24 of 25.
  CHECK(run_op(OpKind::kBmm, {bf16({8, 4, 6}), bf16({8, 6, 2})}, {}, {2, 2}).size() == 24);
}

TEST_CASE("addmm: the bias follows the output through broadcasting, Partial included") {
  OpStrategy op = run_op(OpKind::kAddmm, {bf16({2}), bf16({4, 6}), bf16({6, 2})}, {}, {2});
  CHECK(formatted(op) == Texts{"R <- R; R; R", "S(0) <- R; S(0); R", "S(1) <- S(0); R; S(1)",
                               "P(sum) <- P(sum); S(1); S(0)"});
  // A full [4,2] bias shards with the output's rows too.
  OpStrategy full = run_op(OpKind::kAddmm, {bf16({4, 2}), bf16({4, 6}), bf16({6, 2})}, {}, {2});
  CHECK(format_strategy(full.strategies[1]) == "S(0) <- S(0); S(0); R");
}

TEST_CASE("mm: wrong operand ranks are bad input, not a crash") {
  auto r = try_op(OpKind::kMm, {bf16({4, 6, 2}), bf16({6, 2})}, {}, {2}, {}, {}, {bf16({4, 2})});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.starts_with("node 'op': field 'inputs': mm needs 2-d operands"));
}

TEST_CASE("mm: StridedShard variants behind strided_mm (AutoParallel PR #429)") {
  // x [2,4,8] viewed as [8,8]: R,S(1) on (2,2) flattens to R,_S(0,2); the mm then sees sf = 2.
  graph::GraphBuilder b("strided");
  auto x = b.placeholder("x", core::OpRole::kInput, bf16({2, 4, 8}));
  auto w = b.placeholder("w", core::OpRole::kParam, bf16({8, 8}));
  auto flat = b.op(OpKind::kView, "flat", {x}, {{"size", std::vector<std::int64_t>{8, 8}}});
  b.op(OpKind::kMm, "mm", {flat, w});
  graph::Graph g = finish(std::move(b));
  const auto plain = enumerate(g, {2, 2});
  CHECK(plain.of("mm").size() == 16);
  EnumerateOptions opt;
  opt.strided_mm = true;
  const auto strided = enumerate(g, {2, 2}, opt);
  const OpStrategy& mm = strided.of("mm");
  // Rows R, M, M', N, N', K, K' (' = _S with sf 2): 49 combinations, all valid (8 -> 4 -> 2).
  CHECK(mm.size() == 49);
  CHECK(has_strategy(mm, {"R,_S(0,2)"}, {"R,_S(0,2)", "R,R"}));
  CHECK(has_strategy(mm, {"_S(1,2),P(sum)"}, {"R,S(1)", "_S(1,2),S(0)"}));
  CHECK(has_strategy(mm, {"P(sum),R"}, {"_S(1,2),R", "_S(0,2),R"}));
  // The variant comes right after its plain row: per mesh dim R, M, M', N, N', K, K'.
  CHECK(format_strategy(mm.strategies[1]) == "R,S(0) <- R,S(0); R,R");
  CHECK(format_strategy(mm.strategies[2]) == "R,_S(0,2) <- R,_S(0,2); R,R");
  // The plain strategies are those of the default enumeration, in the same relative order.
  std::vector<std::string> kept;
  for (const std::string& s : formatted(mm)) {
    if (s.find("_S") == std::string::npos) kept.push_back(s);
  }
  CHECK(kept == formatted(plain.of("mm")));
}

}  // namespace
}  // namespace dtplan::strategy::testing
