#include "replay/plan_gemms.h"

#include <doctest/doctest.h>

#include "placement/placement_text.h"
#include "support/plan_support.h"

namespace dtplan::replay {
namespace {

using core::DType;

plan::PlanOp op(std::string name, std::string kind, std::vector<std::int32_t> inputs,
                std::vector<std::int64_t> shape, const std::string& placements, double us = 0) {
  plan::PlanOp o;
  o.name = std::move(name);
  o.op = std::move(kind);
  o.inputs = std::move(inputs);
  o.shape = std::move(shape);
  o.dtype = DType::kBF16;
  o.placements = placement::parse_placement_list(placements, "test").value().placements;
  o.compute_us = us;
  return o;
}

ReplaySource source_on(std::vector<std::int64_t> mesh, std::vector<plan::PlanOp> ops) {
  ReplaySource s;
  s.kind = PlanKind::kModel;
  s.mesh.shape = std::move(mesh);
  s.ops = std::move(ops);
  return s;
}

TEST_CASE("plan gemms: the small model plan's mm (worked example)") {
  // y = mm(x[16,16], w[16,16]) with output R,P(sum),R on (2,2,2): k is split by B's 2.
  const PlanGemms g = plan_gemms(from_model_plan(testing::small_model_plan()));
  REQUIRE(g.jobs.size() == 1);
  CHECK(g.jobs[0] == GemmJob{2, "y", 16, 16, 8, DType::kF32, 3.5, 1});
  CHECK(g.skipped == 0);
}

TEST_CASE("plan gemms: every form, local sizes, merging and skipping") {
  // (dp, tp) = (2, 4).
  std::vector<plan::PlanOp> ops = {
      op("x", "placeholder", {}, {2, 8, 64}, "S(0),R"),          // 0: activations [a,b,k]
      op("w", "placeholder", {}, {64, 32}, "R,S(1)"),            // 1: weight [k,n]
      op("lin", "einsum", {0, 1}, {2, 8, 32}, "S(0),S(2)", 7),   // m = 1*8, n = 32/4, k = 64
      op("a", "placeholder", {}, {10, 64}, "R,R"),               // 3
      op("mm", "mm", {3, 1}, {10, 32}, "S(0),P(sum)", 2),        // m = ceil(10/2), k = 64/4
      op("bias", "placeholder", {}, {32}, "R,R"),                // 5
      op("addmm", "addmm", {5, 3, 1}, {10, 32}, "S(0),P(sum)"),  // same GEMM as mm: merged
      op("ba", "placeholder", {}, {4, 6, 64}, "R,R"),            // 7
      op("bb", "placeholder", {}, {4, 64, 32}, "R,R"),           // 8
      op("bmm", "bmm", {7, 8}, {4, 6, 32}, "S(0),R", 1),         // m' = 2*6, n 32, k 64
      op("attn", "einsum", {0, 0}, {2, 8, 8}, "R,R"),            // not a linear layer: skipped
      op("bad", "mm", {3, 1}, {10, 31}, "R,R"),                  // shapes disagree: skipped
  };
  const PlanGemms g = plan_gemms(source_on({2, 4}, ops));
  REQUIRE(g.jobs.size() == 3);
  CHECK(g.jobs[0] == GemmJob{2, "lin", 8, 8, 64, DType::kBF16, 7, 1});
  CHECK(g.jobs[1] == GemmJob{4, "mm", 5, 32, 16, DType::kBF16, 2, 2});
  CHECK(g.jobs[2] == GemmJob{9, "bmm", 12, 32, 64, DType::kBF16, 1, 1});
  CHECK(g.skipped == 2);
  // A redistribute plan has no ops.
  CHECK(plan_gemms(source_on({2}, {})) == PlanGemms{});
}

}  // namespace
}  // namespace dtplan::replay
