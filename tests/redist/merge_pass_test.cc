// The flattened-mesh merge pass on hand-built step lists: cases 58-73 of
// docs/reference/placements.md §6.5, the docs/reference/placements.md §4.6 fixes (uneven
// all_gather, StridedShard), whole-group merging and the warnings.

#include "redist/merge_pass.h"

#include <doctest/doctest.h>

#include "mesh/mesh_ops.h"
#include "placement/placement_text.h"
#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using testing::mesh_context;
using testing::state_of;
using testing::steps_of;
using Ints = std::vector<std::int64_t>;

MergeResult run(const MeshContext& ctx, const Ints& shape, const std::string& src,
                const std::string& steps) {
  auto r = merge_pass(ctx, shape, state_of(src), steps_of(steps));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  return *r;
}

std::string text(const MergeResult& r) {
  std::string out;
  for (const Transform& t : r.steps) out += (out.empty() ? "" : " ") + to_string(t);
  return out;
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

const testing::Names kABC = {"A", "B", "C"};

TEST_CASE("merge 58: no flattened mesh -> unchanged, one warning, once per sink") {
  MeshContext ctx = mesh_context({2, 2, 2}, kABC);
  MergeResult r = run(ctx, {8, 8}, "P(sum),R,P(sum)", "0:P(sum)->R 2:P(sum)->R");
  CHECK(text(r) == "0:P(sum)->R 2:P(sum)->R");
  REQUIRE(r.warnings.size() == 1);
  const Warning& w = r.warnings[0];
  CHECK(w.reason == WarningReason::kNoFlattenedMesh);
  CHECK(w.mesh_dims == std::vector<std::int32_t>{0, 2});
  for (const char* part : {"While redistributing from", "Partial(sum)", "Replicate()",
                           "2 sequential", "all_reduce", "\"A\"", "\"C\"", "suboptimal",
                           "flatten mesh dimensions [\"A\", \"C\"]", "differ bitwise"}) {
    CHECK(has(w.message, part));
  }
  // max and min reduce to the same bits in any order: the warning makes no bitwise claim.
  MergeResult m = run(ctx, {8, 8}, "P(max),R,P(max)", "0:P(max)->R 2:P(max)->R");
  REQUIRE(m.warnings.size() == 1);
  CHECK(has(m.warnings[0].message, "suboptimal"));
  CHECK_FALSE(has(m.warnings[0].message, "bitwise"));
  WarningSink sink;
  CHECK(sink.emit(ctx.key(), w));
  CHECK_FALSE(sink.emit(ctx.key(), w));  // a repeat logs nothing
  CHECK(sink.emitted().size() == 1);
  CHECK(sink.emit("another mesh", w));
}

TEST_CASE("merge 59, 61, 68: adjacent like-kind steps merge into one flattened step") {
  CHECK(text(run(mesh_context({2, 2, 2}, kABC, {{"A", "B"}}), {8}, "P(sum),P(sum),R",
                 "0:P(sum)->R 1:P(sum)->R")) == "0,1:P(sum)->R@A_B");
  CHECK(text(run(mesh_context({2, 2, 2}, kABC, {{"A", "B", "C"}}), {8}, "P(sum),P(sum),P(sum)",
                 "0:P(sum)->R 1:P(sum)->R 2:P(sum)->R")) == "0,1,2:P(sum)->R@A_B_C");
  CHECK(text(run(mesh_context({2, 2, 2}, kABC, {{"A", "B"}}), {8, 8}, "S(0),S(0),R",
                 "1:S(0)->R 0:S(0)->R")) == "0,1:S(0)->R@A_B");
}

TEST_CASE("merge 60, 62, 67, 69: nothing to merge") {
  MeshContext ac = mesh_context({2, 2, 2}, kABC, {{"A", "C"}});
  MergeResult r60 = run(ac, {8}, "P(sum),S(0),P(sum)", "0:P(sum)->R 1:S(0)->R 2:P(sum)->R");
  CHECK(r60.steps.size() == 3);
  CHECK(r60.warnings.empty());
  CHECK(text(run(ac, {8}, "P(sum),R,R", "0:P(sum)->R")) == "0:P(sum)->R");
  CHECK(run(ac, {8}, "R,R,R", "").steps.empty());
  CHECK(text(run(mesh_context({2, 2, 2}, kABC, {{"A", "B"}}), {8}, "P(sum),S(0),R",
                 "0:P(sum)->R 1:S(0)->R")) == "0:P(sum)->R 1:S(0)->R");
}

TEST_CASE("merge 63: a submesh's flattened mesh") {
  auto root = mesh::DeviceMesh::create({2, 2, 1, 2}, {"dp", "fsdp", "cp", "ep"}).value();
  auto sub = mesh::slice(root, std::vector<std::string>{"cp", "ep"}).value();
  REQUIRE(mesh::flatten(sub, "cp_ep").ok());
  MeshContext ctx = MeshContext::make(sub, 8, "h100-dgx").value();
  auto planner = testing::make_planner(ctx, CostModelKind::kNccl);
  auto plan = planner->plan(testing::spec_of({8}, "P(sum),P(sum)", {1, 2}),
                            testing::spec_of({8}, "R,R", {1, 2}), {});
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
  REQUIRE((*plan)->steps.size() == 1);
  CHECK((*plan)->steps[0].transform.flattened_mesh == "cp_ep");
  CHECK((*plan)->steps[0].state.placements == state_of("R,R").placements);
}

TEST_CASE("merge 64, 65: reduce_scatter evenness counts only the merged dims") {
  CHECK(text(run(mesh_context({2, 4, 1}, kABC, {{"A", "C"}}), {2}, "P(sum),R,P(sum)",
                 "0:P(sum)->S(0) 2:P(sum)->S(0)")) == "0,2:P(sum)->S(0)@A_C");
  MeshContext bc = mesh_context({2, 2, 2}, kABC, {{"B", "C"}});
  CHECK(text(run(bc, {12}, "R,P(sum),P(sum)", "1:P(sum)->S(0) 2:P(sum)->S(0)")) ==
        "1,2:P(sum)->S(0)@B_C");
  // A prior shard: mesh dim 0 already splits 24 into 12s.
  CHECK(text(run(bc, {24}, "S(0),P(sum),P(sum)", "1:P(sum)->S(0) 2:P(sum)->S(0)")) ==
        "1,2:P(sum)->S(0)@B_C");
}

TEST_CASE("merge 66: uneven reduce_scatter -> unchanged with a warning") {
  MergeResult r = run(mesh_context({2, 3}, {"A", "B"}, {{"A", "B"}}), {10}, "P(sum),P(sum)",
                      "0:P(sum)->S(0) 1:P(sum)->S(0)");
  CHECK(r.steps.size() == 2);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].reason == WarningReason::kUnevenTensorShape);
  CHECK(has(r.warnings[0].message, "While redistributing from"));
  CHECK(has(r.warnings[0].message, "reduce_scatter"));
  CHECK(has(r.warnings[0].message, "not evenly divisible"));
}

TEST_CASE("merge 70, 71: sum + avg merge with the avg scale") {
  MeshContext ab = mesh_context({2, 2}, {"A", "B"}, {{"A", "B"}});
  CHECK(text(run(ab, {4}, "P(sum),P(avg)", "0:P(sum)->R 1:P(avg)->R")) == "0,1:P(sum)->R@A_B/2");
  CHECK(text(run(ab, {4}, "P(sum),P(avg)", "0:P(sum)->S(0) 1:P(avg)->S(0)")) ==
        "0,1:P(sum)->S(0)@A_B/2");
  // One op merges as that op: P(avg) members average over the flattened group in the collective
  // (ncclAvg), with no divide afterwards.
  CHECK(text(run(ab, {4}, "P(avg),P(avg)", "0:P(avg)->R 1:P(avg)->R")) == "0,1:P(avg)->R@A_B");
  CHECK(text(run(ab, {4}, "P(avg),P(avg)", "0:P(avg)->S(0) 1:P(avg)->S(0)")) ==
        "0,1:P(avg)->S(0)@A_B");
  CHECK(text(run(ab, {4}, "P(max),P(max)", "0:P(max)->R 1:P(max)->R")) == "0,1:P(max)->R@A_B");
  // Different targets never merge: P -> S(0) and P -> S(1) stay two reduce_scatters.
  CHECK(run(ab, {4, 4}, "P(sum),P(sum)", "0:P(sum)->S(0) 1:P(sum)->S(1)").steps.size() == 2);
}

TEST_CASE("merge: a step that moves nothing does not end a group") {
  // Mesh 7,1,6 with B_D flattened: DTensor's greedy plan for P,P,P -> R,S(0),R puts the
  // reduce_scatter on the size-1 dim C between the two all_reduces.
  MeshContext bd = mesh_context({7, 1, 6}, {"B", "C", "D"}, {{"B", "D"}});
  MergeResult r =
      run(bd, {42, 5}, "P(sum),P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->S(0) 2:P(sum)->R");
  CHECK(text(r) == "0,2:P(sum)->R@B_D 1:P(sum)->S(0)");
  CHECK(r.warnings.empty());
  REQUIRE(r.merged.size() == 1);
  CHECK(r.merged[0].step == 0);
  CHECK(r.merged[0].members == steps_of("0:P(sum)->R 2:P(sum)->R"));
  // Without B_D the two all_reduces are one group that cannot merge (a warning for B and D).
  MergeResult apart = run(mesh_context({7, 1, 6}, {"B", "C", "D"}), {42, 5}, "P(sum),P(sum),P(sum)",
                          "0:P(sum)->R 1:P(sum)->S(0) 2:P(sum)->R");
  CHECK(apart.steps.size() == 3);
  REQUIRE(apart.warnings.size() == 1);
  CHECK(apart.warnings[0].mesh_dims == std::vector<std::int32_t>{0, 2});
  // A step that moves data still ends the group.
  MeshContext ac = mesh_context({2, 2, 2}, kABC, {{"A", "C"}});
  CHECK(run(ac, {8, 4}, "P(sum),S(0),P(sum)", "0:P(sum)->R 1:S(0)->R 2:P(sum)->R").steps.size() ==
        3);
  // On an empty tensor nothing moves: the gather is passed, unless it changes the shard order of
  // the group's tensor dim.
  CHECK(text(run(ac, {0, 4}, "P(sum),S(0),P(sum)", "0:P(sum)->R 1:S(0)->R 2:P(sum)->R")) ==
        "0,2:P(sum)->R@A_C 1:S(0)->R");
  CHECK(run(ac, {0, 4}, "P(sum),S(1),P(sum)", "0:P(sum)->S(0) 1:S(1)->S(0) 2:P(sum)->S(0)")
            .steps.size() == 3);
  // Steps after the group's last member stay where they are.
  CHECK(text(run(bd, {42, 5}, "P(sum),P(sum),R", "0:P(sum)->R 1:P(sum)->S(0)")) ==
        "0:P(sum)->R 1:P(sum)->S(0)");
}

TEST_CASE("merge 72: non-ascending reduce_scatter -> unchanged with a warning") {
  MergeResult r = run(mesh_context({2, 4}, {"A", "B"}, {{"A", "B"}}), {16}, "P(sum),P(sum)",
                      "1:P(sum)->S(0) 0:P(sum)->S(0)");
  CHECK(r.steps.size() == 2);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].reason == WarningReason::kNonAscendingMeshDims);
  CHECK(has(r.warnings[0].message, "non-ascending order"));
  CHECK(has(r.warnings[0].message, "reduce_scatter"));
}

TEST_CASE("merge 73: merging off returns the plan unchanged, on merges it") {
  auto planner =
      testing::make_planner(mesh_context({2, 2, 2}, kABC, {{"A", "B"}}), CostModelKind::kNccl);
  auto src = testing::spec_of({8}, "P(sum),P(sum),R", {2, 2, 2});
  auto dst = testing::spec_of({8}, "R,R,R", {2, 2, 2});
  CHECK(planner->plan(src, dst, {PlannerKind::kGreedy, false}).value()->steps.size() == 2);
  CHECK(planner->plan(src, dst, {PlannerKind::kGreedy, true}).value()->steps.size() == 1);
  CHECK(planner->plan(src, dst, {PlannerKind::kGreedy, false}).value()->steps.size() == 2);
}

TEST_CASE("merge: the uneven all_gather of 4.6 defect 1 is not merged") {
  MeshContext ab = mesh_context({2, 2}, {"A", "B"}, {{"A", "B"}});
  // (5,3) [S0,S0]: nested sizes 2/1/1/1, a flat gather would assume 2/2/1/0.
  MergeResult r = run(ab, {5, 3}, "S(0),S(0)", "1:S(0)->R 0:S(0)->R");
  CHECK(r.steps.size() == 2);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].reason == WarningReason::kUnevenTensorShape);
  CHECK(has(r.warnings[0].message, "all_gather"));
  CHECK(text(run(ab, {8, 3}, "S(0),S(0)", "1:S(0)->R 0:S(0)->R")) == "0,1:S(0)->R@A_B");
  // A size-1 member before an unmerged split: the outer length is the unmerged split's piece
  // (6 -> 3 | 3, and 3 does not divide by 2), not the whole dim as PyTorch takes it.
  MeshContext one = mesh_context({1, 2, 2}, kABC, {{"A", "C"}});
  CHECK(run(one, {6}, "S(0),S(0),S(0)", "2:S(0)->R 0:S(0)->R").steps.size() == 2);
  CHECK(text(run(one, {8}, "S(0),S(0),S(0)", "2:S(0)->R 0:S(0)->R")) == "0,2:S(0)->R@A_C");
}

TEST_CASE("merge: StridedShard steps and all_to_all never merge") {
  MeshContext ab = mesh_context({2, 2}, {"A", "B"}, {{"A", "B"}});
  MergeResult r = run(ab, {8}, "_S(0,2),_S(0,2)", "1:_S(0,2)->R 0:_S(0,2)->R");
  CHECK(r.steps.size() == 2);
  CHECK(r.warnings.empty());
  CHECK(run(ab, {8, 8}, "S(0),S(0)", "1:S(0)->S(1) 0:S(0)->S(1)").steps.size() == 2);
}

TEST_CASE("merge: the whole group merges or nothing does") {
  MeshContext ab = mesh_context({2, 2, 2}, kABC, {{"A", "B"}});
  MergeResult r = run(ab, {8}, "P(sum),P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->R 2:P(sum)->R");
  CHECK(r.steps.size() == 3);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].mesh_dims == std::vector<std::int32_t>{0, 1, 2});
  CHECK(has(r.warnings[0].message, "3 sequential"));
  // Without dim names the advice names the dims by index.
  MeshContext unnamed = mesh_context({2, 2}, {});
  MergeResult u = run(unnamed, {8}, "P(sum),P(sum)", "0:P(sum)->R 1:P(sum)->R");
  REQUIRE(u.warnings.size() == 1);
  CHECK(has(u.warnings[0].message, "dims 0, 1 of DeviceMesh("));
}

TEST_CASE("merge: kMergeQuietly makes kMerge's steps without warnings") {
  struct Case {
    MeshContext ctx;
    Ints shape;
    const char* src;
    const char* steps;
  };
  const std::vector<Case> cases = {
      // merges
      {mesh_context({2, 2, 2}, kABC, {{"A", "B"}}),
       {8},
       "P(sum),P(sum),R",
       "0:P(sum)->R 1:P(sum)->R"},
      // no flattened mesh: a warning in kMerge
      {mesh_context({2, 2, 2}, kABC), {8, 8}, "P(sum),R,P(sum)", "0:P(sum)->R 2:P(sum)->R"},
      // no group can form: returned as given
      {mesh_context({2, 2, 2}, kABC, {{"A", "B"}}), {8, 8}, "S(0),S(1),R", "0:S(0)->R 1:S(1)->R"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.steps);
    const MergeResult loud = run(c.ctx, c.shape, c.src, c.steps);
    auto quiet =
        merge_pass(c.ctx, c.shape, state_of(c.src), steps_of(c.steps), MergeMode::kMergeQuietly);
    REQUIRE(quiet.ok());
    CHECK(text(*quiet) == text(loud));
    CHECK(quiet->warnings.empty());
  }
}

TEST_CASE("merge: steps that do not apply are bad input") {
  MeshContext ab = mesh_context({2, 2}, {"A", "B"}, {{"A", "B"}});
  auto r = merge_pass(ab, std::vector<std::int64_t>{8}, state_of("R,R"), steps_of("0:P(sum)->R"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
}

}  // namespace
}  // namespace dtplan::redist
