#include "sweep/plan_evaluator.h"

#include <doctest/doctest.h>

#include "sim/timeline.h"
#include "support/mesh_gen.h"
#include "support/plan_builder.h"
#include "support/plan_support.h"

namespace dtplan::sweep {
namespace {

using testing::ok;

TEST_CASE("plan evaluator: plan totals, nothing overlapped") {
  const plan::Plan p = testing::small_model_plan();
  const MeshEvaluation e = ok(evaluate_plan(p, {.step = StepModel::kPlanTotal}));
  CHECK(e.step_time_us == p.cost.total_us);
  CHECK(e.compute_us == p.cost.compute_us);
  CHECK(e.communication_us == p.cost.communication_us);
  CHECK(e.exposed_us == p.cost.communication_us);
  CHECK(e.memory_bytes_per_rank == p.memory.peak_bytes_per_rank);
  CHECK(e.optimal == p.solver.optimal);
  CHECK(e.note.empty());
  CHECK(check_evaluation(e, "small").ok());
}

TEST_CASE("plan evaluator: the step simulator's figures of the critical rank") {
  const plan::Plan p = testing::small_model_plan();
  const sim::Timeline tl = ok(sim::simulate_step(p, {}));
  const MeshEvaluation e = ok(evaluate_plan(p, {}));
  CHECK(e.step_time_us == tl.step_time_us);
  CHECK(e.compute_us == tl.compute_us);
  CHECK(e.communication_us == tl.communication_us);
  CHECK(e.exposed_us == tl.exposed_communication_us);
  CHECK(e.memory_bytes_per_rank == p.memory.peak_bytes_per_rank);
  CHECK(check_evaluation(e, "small").ok());
}

TEST_CASE("plan evaluator: overlap hides communication that the plan total counts") {
  // An FSDP-like chain: the all-gather of layer 1's weight can run under layer 0's compute.
  testing::PlanBuilder b({2, 4}, {"dp", "tp"}, 8);
  const auto x = b.op("x", 5.0, {});
  const auto w0 = b.param("w0", 0);
  const auto w1 = b.param("w1", 1);
  const auto y0 = b.op("mm0", 100.0, {x, w0}, plan::Phase::kForward, 0);
  const auto y1 = b.op("mm1", 100.0, {y0, w1}, plan::Phase::kForward, 1);
  b.redistribute(y0, 1, {testing::all_gather({0}, 40.0)});
  b.redistribute(y1, 1, {testing::all_gather({0}, 40.0)});
  plan::Plan p = b.build();
  p.cost = {205.0, 80.0, 0.0, 285.0};
  const MeshEvaluation total = ok(evaluate_plan(p, {.step = StepModel::kPlanTotal}));
  const MeshEvaluation sim = ok(evaluate_plan(p, {}));
  CHECK(total.step_time_us == 285.0);
  CHECK(sim.step_time_us < total.step_time_us);
  CHECK(sim.exposed_us < sim.communication_us);
  CHECK(check_evaluation(sim, "fsdp").ok());
}

TEST_CASE("plan evaluator: too large to simulate falls back to the plan total, with a note") {
  const plan::Plan p = testing::small_model_plan();
  PlanEvaluatorOptions o;
  o.timeline.max_rank_tasks = 1;
  const MeshEvaluation e = ok(evaluate_plan(p, o));
  CHECK(e.step_time_us == p.cost.total_us);
  CHECK(e.note.starts_with("not simulated ("));
  CHECK(e.note.ends_with("): plan total, no overlap"));
}

TEST_CASE("plan evaluator: an unproven exact plan notes its gap and what stopped it") {
  plan::Plan p = testing::small_model_plan();
  p.solver = {"exact", 1.0, 1000.0, 999.5, false};  // 0.05% above its lower bound
  PlanEvaluatorOptions o{.step = StepModel::kPlanTotal};
  CHECK(ok(evaluate_plan(p, o)).note ==
        "exact solver stopped 0.0500% above its lower bound "
        "(time limit)");
  o.relative_gap = 1e-3;  // asked for 0.1%: the gap stopped it
  CHECK(ok(evaluate_plan(p, o)).note ==
        "exact solver stopped 0.0500% above its lower bound "
        "(--gap)");
  p.solver = {"exact", 1.0, 1e9, 1e9 - 1, false};  // 1e-7%: too small for 4 decimals
  CHECK(ok(evaluate_plan(p, o)).note ==
        "exact solver stopped < 0.0001% above its lower bound "
        "(--gap)");
  // Where the plan says why, that is the reason given, within the gap or not.
  p.solver = {"exact", 1.0, 1000.0, 999.5, false, "time_limit"};
  CHECK(ok(evaluate_plan(p, o)).note.ends_with("(time limit)"));
  p.solver.stop_reason = "point_limit";
  CHECK(ok(evaluate_plan(p, o)).note.ends_with("(frontier point limit)"));
  p.solver.stop_reason = "gap";
  o.relative_gap = 0;
  CHECK(ok(evaluate_plan(p, o)).note.ends_with("(--gap)"));
  p.solver = {"exact", 1.0, 1000.0, 1000.0, true};
  CHECK(ok(evaluate_plan(p, o)).note.empty());
}

TEST_CASE("plan evaluator: forwards the plan function's answer and errors") {
  int calls = 0;
  PlanEvaluator ev(
      [&calls](const MeshCandidate& c) -> core::Result<plan::Plan> {
        ++calls;
        if (c.shape.size() == 3) return core::Error::unsupported("3-D: no strategy");
        return testing::small_model_plan();
      },
      {.step = StepModel::kPlanTotal});
  CHECK(ok(ev.evaluate({{2, 4}, {"dp", "tp"}, {}})).step_time_us ==
        testing::small_model_plan().cost.total_us);
  auto bad = ev.evaluate({{2, 2, 2}, {"dp", "cp", "tp"}, {}});
  REQUIRE(!bad.ok());
  CHECK(bad.error().message == "3-D: no strategy");
  CHECK(calls == 2);
  CHECK(ev.description() == "exact solver + plan total (no overlap)");
  CHECK(PlanEvaluator(nullptr, {}).description() == "exact solver + step simulator");
}

}  // namespace
}  // namespace dtplan::sweep
