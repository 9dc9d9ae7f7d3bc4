// The executor on the worked examples (docs/reference/placements.md §1.2, §1.4, §6.1)
// with exact values, every case of docs/reference/placements.md §6 verified with 0 wrong elements,
// and merges the rules refuse (uneven reduce_scatter and all_gather, non-ascending reduce_scatter;
// docs/reference/placements.md §4.3, §4.6), built by hand: the executor runs them and they corrupt
// data, while the planner never emits them.

#include "sim/redist_executor.h"

#include <doctest/doctest.h>

#include <numeric>

#include "core/strings.h"
#include "placement/local_shape.h"
#include "redist/planner.h"
#include "sim/fake_process_group.h"
#include "sim/verify.h"
#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::sim {
namespace {

using redist::PlannerKind;
using redist::RedistPlan;
using Ints = std::vector<std::int64_t>;

RedistPlan plan_for(const redist::MeshContext& ctx, const Ints& shape, const std::string& from,
                    const std::string& to, PlannerKind kind = PlannerKind::kAuto,
                    bool merge = true) {
  const Ints mesh(ctx.sizes().begin(), ctx.sizes().end());
  auto planner = testing::make_planner(ctx, redist::CostModelKind::kNccl);
  auto plan = planner->plan_uncached(testing::spec_of(shape, from, mesh),
                                     testing::spec_of(shape, to, mesh), {kind, merge});
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
  return std::move(plan).value();
}

// Runs `plan` on per-rank f32 tensors made by `make(rank)`; returns the store.
RankTensors run_plan(const RedistPlan& plan, const std::function<Tensor(std::int64_t)>& make) {
  auto ex = RedistExecutor::create(plan);
  REQUIRE_MESSAGE(ex.ok(), (ex.ok() ? std::string() : ex.error().message));
  auto pg = FakeProcessGroup::create({.world_size = ex->world_size()}).value();
  RankTensors t(ex->world_size());
  for (std::int64_t r : ex->ranks()) t.set(r, make(r));
  auto s = ex->run(pg, t);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
  return t;
}

Tensor filled(const Ints& shape, float value) {
  std::int64_t n =
      std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<std::int64_t>());
  return Tensor::from_values<float>(shape, std::vector<float>(static_cast<std::size_t>(n), value))
      .value();
}

Tensor arange(const Ints& shape, float scale = 1) {
  std::int64_t n =
      std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<std::int64_t>());
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * scale;
  return Tensor::from_values<float>(shape, v).value();
}

TEST_CASE("executor: the reference's worked examples, exact values") {
  const redist::MeshContext m4 = testing::mesh_context({4}, {});
  // docs/reference/placements.md §6.1 #7: ones(12,3) P(sum) -> R: every rank holds 4 * ones.
  RankTensors t = run_plan(plan_for(m4, {12, 3}, "P(sum)", "R"), [](std::int64_t) {
    return filled({12, 3}, 1);
  });
  for (std::int64_t r = 0; r < 4; ++r) CHECK(t.at(r) == filled({12, 3}, 4));
  // #11: R -> P(sum) divides by 4; #12: [R,R] -> [P,P] on (2,2) divides by 2 per dim.
  t = run_plan(plan_for(m4, {12, 3}, "R", "P(sum)"), [](std::int64_t) { return arange({12, 3}); });
  CHECK(t.at(2) == arange({12, 3}, 0.25f));
  const redist::MeshContext m22 = testing::mesh_context({2, 2}, {});
  t = run_plan(plan_for(m22, {12, 3}, "R,R", "P(sum),P(sum)"), [](std::int64_t) {
    return arange({12, 3});
  });
  for (std::int64_t r = 0; r < 4; ++r) CHECK(t.at(r) == arange({12, 3}, 0.25f));
  // #25: R -> P(avg|max|min) is the identity.
  for (const char* op : {"P(avg)", "P(max)", "P(min)"}) {
    t = run_plan(plan_for(m4, {12, 3}, "R", op), [](std::int64_t) { return arange({12, 3}); });
    CHECK(t.at(3) == arange({12, 3}));
  }
  // #13: ones(13,3) P(sum) -> S(0): 4 * ones of the torch.chunk local shape (rows 4,4,4,1).
  t = run_plan(plan_for(m4, {13, 3}, "P(sum)", "S(0)"), [](std::int64_t) {
    return filled({13, 3}, 1);
  });
  CHECK(t.at(0) == filled({4, 3}, 4));
  CHECK(t.at(3) == filled({1, 3}, 4));
  // #27-#29: (2,8) S(0) on 4 ranks holds rows 1,1,0,0; S(0) -> S(1) gives (2,2) everywhere.
  t = run_plan(plan_for(m4, {2, 8}, "R", "S(0)"), [](std::int64_t) { return arange({2, 8}); });
  CHECK(t.at(1).shape() == Ints{1, 8});
  CHECK(t.at(2).shape() == Ints{0, 8});
  t = run_plan(plan_for(m4, {2, 8}, "S(0)", "S(1)", PlannerKind::kGreedy), [](std::int64_t r) {
    return r < 2 ? arange({1, 8}, 1).reshaped({1, 8}).value() : filled({0, 8}, 0);
  });
  for (std::int64_t r = 0; r < 4; ++r) CHECK(t.at(r).shape() == Ints{2, 2});
  // docs/reference/placements.md §1.4: _StridedShard(0, sf=2) of 9 elements on 4 ranks: r0 {0,1,5},
  // r1 {2,3,6}, r2 {4,7}, r3 {8}; gathering it back restores arange(9).
  t = run_plan(plan_for(m4, {9}, "R", "_S(0,2)"), [](std::int64_t) { return arange({9}); });
  CHECK(t.at(0) == Tensor::from_values<float>({3}, {0, 1, 5}).value());
  CHECK(t.at(1) == Tensor::from_values<float>({3}, {2, 3, 6}).value());
  CHECK(t.at(2) == Tensor::from_values<float>({2}, {4, 7}).value());
  CHECK(t.at(3) == Tensor::from_values<float>({1}, {8}).value());
  const std::vector<std::vector<float>> pieces = {{0, 1, 5}, {2, 3, 6}, {4, 7}, {8}};
  t = run_plan(plan_for(m4, {9}, "_S(0,2)", "R"), [&](std::int64_t r) {
    const auto& p = pieces[static_cast<std::size_t>(r)];
    return Tensor::from_values<float>({static_cast<std::int64_t>(p.size())}, p).value();
  });
  for (std::int64_t r = 0; r < 4; ++r) CHECK(t.at(r) == arange({9}));
}

struct Case {
  Ints mesh;
  Ints shape;
  std::string from;
  std::string to;
};

// Verifies every planner/merge combination of `c` with integer and float values.
void verify_case(const Case& c, const std::vector<testing::Names>& flatten = {},
                 const testing::Names& names = {}) {
  testing::Names dim_names = names;
  if (dim_names.empty() && !flatten.empty()) {
    for (std::size_t d = 0; d < c.mesh.size(); ++d) dim_names.push_back(std::string(1, 'A' + d));
  }
  const redist::MeshContext ctx = testing::mesh_context(c.mesh, dim_names, flatten);
  INFO(core::format_int_list(c.mesh)
       << " " << core::format_int_list(c.shape) << " " << c.from << " -> " << c.to);
  const Ints mesh = c.mesh;
  const auto src = testing::spec_of(c.shape, c.from, mesh);
  const auto dst = testing::spec_of(c.shape, c.to, mesh);
  for (PlannerKind kind : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
    if (kind == PlannerKind::kGreedy && redist::needs_min_cost(src, dst)) continue;
    for (bool merge : {true, false}) {
      const RedistPlan plan = plan_for(ctx, c.shape, c.from, c.to, kind, merge);
      INFO(plan.trace);
      for (ValueKind v : {ValueKind::kInteger, ValueKind::kFloat}) {
        auto report = verify_plan(plan, {.values = v});
        REQUIRE_MESSAGE(report.ok(), (report.ok() ? std::string() : report.error().message));
        CHECK_MESSAGE(report->wrong_elements == 0, report->first_wrong);
        CHECK(report->elements > 0);
      }
    }
  }
}

// docs/reference/placements.md §6.1
TEST_CASE("executor: every redistribution case verifies") {
  const std::vector<Ints> two_d = {{12, 3}, {13, 3}, {14, 3}, {3, 12}, {3, 13}, {3, 14}};
  for (const Ints& s : two_d) {
    verify_case({{4}, s, "S(0)", "R"});                     // #1
    verify_case({{4}, s, "S(1)", "R"});                     // #2
    verify_case({{4}, s, "R", "S(0)"});                     // #6
    verify_case({{4}, s, "R", "S(1)"});                     // #6
    verify_case({{4}, s, "P(sum)", "S(0)"});                // #13
    verify_case({{4}, s, "P(sum)", "S(1)"});                // #13
    for (const char* p : {"P(avg)", "P(max)", "P(min)"}) {  // the other Partial ops
      verify_case({{4}, s, p, "R"});
      verify_case({{4}, s, p, "S(1)"});
    }
  }
  verify_case({{4}, {12, 3}, "R", "R"});                                      // #3
  verify_case({{4}, {12, 3}, "P(sum)", "P(sum)"});                            // #4
  verify_case({{4}, {12, 3}, "P(sum)", "R"});                                 // #7
  verify_case({{4}, {12, 3}, "R", "P(sum)"});                                 // #11
  verify_case({{2, 2}, {12, 3}, "R,R", "P(sum),P(sum)"});                     // #12
  verify_case({{4}, {12, 3}, "S(1)", "S(-1)"});                               // #14
  for (const Ints& s : std::vector<Ints>{{10, 5}, {9, 5}, {3, 5}, {1, 3}}) {  // #15
    verify_case({{2, 2}, s, "S(0),S(0)", "R,R"});
    verify_case({{2, 2}, s, "S(0),S(1)", "R,R"});
  }
  for (const Ints& s : std::vector<Ints>{{8, 8}, {8, 5}, {5, 8}, {5, 5}}) {
    verify_case({{4}, s, "S(0)", "S(1)"});  // #16
    verify_case({{4}, s, "S(1)", "S(0)"});
    verify_case({{2, 2}, s, "S(0),S(1)", "S(0),S(0)"});  // #17
    verify_case({{2, 2}, s, "S(0),S(1)", "S(1),S(0)"});  // #18
    verify_case({{2, 2}, s, "S(0),S(0)", "S(1),S(1)"});  // #19
  }
  for (const Ints& s : std::vector<Ints>{{8, 8, 8}, {5, 6, 7}}) {
    verify_case({{4}, s, "S(0)", "S(1)"});               // #16, 3-D
    verify_case({{2, 2}, s, "S(0),S(2)", "S(1),S(0)"});  // #20
    verify_case({{2, 2}, s, "S(1),S(1)", "S(1),S(2)"});  // #21
  }
  verify_case({{2, 2}, {12, 4}, "S(0),S(1)", "S(1),S(0)"});  // #22's tensor
  for (const char* s : {"S(1)", "R", "P(sum)"}) {            // #23: a size-1 mesh dim
    for (const char* d : {"S(0)", "S(1)", "R"}) {
      if (std::string(s) == "P(sum)" && std::string(d) != "R") continue;  // P -> S is fine too
      verify_case({{4, 1}, {16, 8}, std::string("S(0),") + s, std::string("S(0),") + d});
    }
  }
  verify_case({{2, 2}, {12, 8}, "P(sum),S(0)", "P(sum),S(0)"});  // #24, the allowed ones
  verify_case({{2, 2}, {12, 8}, "P(sum),S(0)", "P(sum),S(1)"});
  verify_case({{2, 2}, {12, 8}, "S(0),P(sum)", "R,P(sum)"});
  verify_case({{2, 2}, {12, 8}, "S(0),P(max)", "R,P(max)"});
  for (const char* op : {"P(sum)", "P(avg)", "P(min)", "P(max)"}) {  // #25
    verify_case({{4}, {12, 3}, "R", op});
  }
  verify_case({{4}, {2, 8}, "R", "S(0)"});     // #27
  verify_case({{4}, {2, 8}, "S(0)", "R"});     // #28
  verify_case({{4}, {2, 8}, "S(0)", "S(1)"});  // #29
  // #30-#32 at a smaller size with the same structure (1 or 4 leading rows).
  verify_case({{2, 2}, {1, 8, 6}, "S(1),S(1)", "S(1),R"});
  verify_case({{2, 2}, {1, 8, 6}, "S(2),S(2)", "S(2),R"});
  verify_case({{2, 2}, {4, 8, 6}, "S(1),S(1)", "S(1),R"});
}

// docs/reference/placements.md §6.5
TEST_CASE("executor: every merge-pass case verifies, merged where the rules allow") {
  verify_case({{2, 2, 2}, {8, 8}, "P(sum),R,P(sum)", "R,R,R"}, {});                      // #58
  verify_case({{2, 2, 2}, {8, 8}, "P(sum),P(sum),R", "R,R,R"}, {{"A", "B"}});            // #59
  verify_case({{2, 2, 2}, {8, 8}, "P(sum),S(0),P(sum)", "R,R,R"}, {{"A", "C"}});         // #60
  verify_case({{2, 2, 2}, {8, 8}, "P(sum),P(sum),P(sum)", "R,R,R"}, {{"A", "B", "C"}});  // #61
  verify_case({{2, 2, 2}, {8, 8}, "P(sum),R,R", "R,R,R"}, {{"A", "C"}});                 // #62
  verify_case({{2, 2, 1, 2}, {4, 4}, "R,R,P(sum),P(sum)", "R,R,R,R"}, {{"C", "D"}});     // #63
  verify_case({{2, 4, 1}, {8}, "P(sum),S(0),P(sum)", "S(0),S(0),S(0)"}, {{"A", "C"}});   // #64
  verify_case({{2, 2, 2}, {12}, "R,P(sum),P(sum)", "R,S(0),S(0)"}, {{"B", "C"}});        // #65
  verify_case({{2, 3}, {10}, "P(sum),P(sum)", "S(0),S(0)"}, {{"A", "B"}});               // #66
  verify_case({{2, 2, 2}, {8, 8}, "S(0),S(0),R", "R,R,R"}, {{"A", "B"}});                // #68
  verify_case({{2, 2, 2}, {8, 8}, "P(sum),S(0),R", "R,R,R"}, {{"A", "B"}});              // #69
  verify_case({{2, 2}, {8, 8}, "P(sum),P(avg)", "R,R"}, {{"A", "B"}});                   // #70
  verify_case({{2, 2}, {8}, "P(sum),P(avg)", "S(0),S(0)"}, {{"A", "B"}});                // #71
  verify_case({{2, 4}, {16}, "P(sum),P(sum)", "S(0)[1],S(0)[0]"}, {{"A", "B"}});         // #72
  verify_case({{2, 3}, {6, 4}, "P(avg),P(avg)", "R,R"}, {{"A", "B"}});  // avg_scale 6
  verify_case({{2, 3}, {6, 4}, "P(avg),P(avg)", "R,R"});                // NCCL avg over 3
  verify_case({{3, 2}, {5}, "P(max),P(max)", "R,R"}, {{"A", "B"}});
}

// `base` with its steps replaced by `steps` (text as testing::steps_of).
RedistPlan hand_plan(RedistPlan base, const std::string& steps) {
  base.steps.clear();
  for (redist::Transform& t : testing::steps_of(steps)) {
    redist::PlanStep s;
    s.transform = std::move(t);
    base.steps.push_back(std::move(s));
  }
  return base;
}

bool has_flattened_step(const RedistPlan& plan) {
  for (const redist::PlanStep& s : plan.steps) {
    if (s.transform.flattened()) return true;
  }
  return false;
}

TEST_CASE("executor: merges the rules refuse corrupt data; the planner never emits them") {
  struct Refused {
    Ints mesh;
    Ints shape;
    std::string from;
    std::string to;
    std::string merged;  // the forced merge
    std::string reason;  // the warning the planner gives instead
  };
  const std::vector<Refused> cases = {
      // #66: reduce_scatter of 10 over 2 x 3: nested 5|5 -> 2,2,1 vs flat 2,2,2,2,2,0.
      {{2, 3}, {10}, "P(sum),P(sum)", "S(0),S(0)", "0,1:P(sum)->S(0)@A_B", "uneven_tensor_shape"},
      // docs/reference/placements.md §4.6: all_gather of (5,3) [S0,S0] on 2x2: nested 2/1/1/1 vs
      // flat 2/2/1/0.
      {{2, 2}, {5, 3}, "S(0),S(0)", "R,R", "0,1:S(0)->R@A_B", "uneven_tensor_shape"},
      // #72: reduce_scatters in order 1 then 0 give S(0)[1],S(0)[0]; the flat one S(0)[0]S(0)[1].
      {{2, 4},
       {16},
       "P(sum),P(sum)",
       "S(0)[1],S(0)[0]",
       "0,1:P(sum)->S(0)@A_B",
       "non_ascending_mesh_dims"},
  };
  for (const Refused& c : cases) {
    INFO(c.from << " -> " << c.to << " forced " << c.merged);
    const redist::MeshContext ctx = testing::mesh_context(c.mesh, {"A", "B"}, {{"A", "B"}});
    for (PlannerKind kind : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
      const auto src = testing::spec_of(c.shape, c.from, c.mesh);
      const auto dst = testing::spec_of(c.shape, c.to, c.mesh);
      if (kind == PlannerKind::kGreedy && redist::needs_min_cost(src, dst)) continue;
      const RedistPlan plan = plan_for(ctx, c.shape, c.from, c.to, kind, true);
      CHECK_FALSE(has_flattened_step(plan));
      auto ok = verify_plan(plan, {.values = ValueKind::kInteger});
      REQUIRE(ok.ok());
      CHECK(ok->wrong_elements == 0);
      if (kind == PlannerKind::kGreedy) {
        REQUIRE(plan.warnings.size() == 1);
        CHECK(redist::warning_reason_name(plan.warnings[0].reason) == c.reason);
      }
    }
    const RedistPlan forced = hand_plan(plan_for(ctx, c.shape, c.from, c.to), c.merged);
    auto bad = verify_plan(forced, {.values = ValueKind::kInteger});
    REQUIRE_MESSAGE(bad.ok(), (bad.ok() ? std::string() : bad.error().message));
    CHECK(bad->wrong_elements > 0);
    MESSAGE(c.merged << ": " << bad->wrong_elements << " wrong of " << bad->elements);
  }
}

TEST_CASE("executor: cost-only mode runs the same collectives on shape-only tensors") {
  const redist::MeshContext ctx = testing::mesh_context({2, 4}, {"A", "B"}, {{"A", "B"}});
  const RedistPlan plan = plan_for(ctx, {9, 5}, "S(0),S(1)", "S(1),S(0)");
  auto ex = RedistExecutor::create(plan).value();
  auto data_pg = FakeProcessGroup::create({.world_size = 8}).value();
  auto cost_pg = FakeProcessGroup::create({.world_size = 8, .mode = DataMode::kCostOnly}).value();
  RankTensors data(8), shapes(8);
  for (std::int64_t r = 0; r < 8; ++r) {
    const Ints local = placement::local_shape(plan.src, plan.mesh.shape, *ex.coordinate(r)).value();
    data.set(r, Tensor::zeros(core::DType::kF32, local).value());
    shapes.set(r, Tensor::shape_only(core::DType::kF32, local).value());
  }
  REQUIRE(ex.run(data_pg, data).ok());
  REQUIRE(ex.run(cost_pg, shapes).ok());
  CHECK(data_pg.trace() == cost_pg.trace());
  for (std::int64_t r = 0; r < 8; ++r) {
    CHECK(data.at(r).shape() == shapes.at(r).shape());
    CHECK_FALSE(shapes.at(r).has_data());
  }
}

TEST_CASE("executor: errors name the step") {
  const redist::MeshContext ctx = testing::mesh_context({2, 2}, {"A", "B"}, {{"A", "B"}});
  RedistPlan plan = plan_for(ctx, {8}, "P(sum),P(sum)", "R,R");
  RedistPlan bad = hand_plan(plan, "0,1:P(sum)->R@nope");
  auto ex = RedistExecutor::create(bad);
  REQUIRE_FALSE(ex.ok());
  CHECK(ex.error().message.find("nope") != std::string::npos);
  bad = hand_plan(plan, "0:S(0)->R");
  ex = RedistExecutor::create(bad);
  REQUIRE_FALSE(ex.ok());
  CHECK(ex.error().message.find("step 0") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::sim
