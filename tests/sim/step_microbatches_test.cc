// The step program of a plan with training options: recomputed ops run again before their
// layer's backward, every microbatch runs its ops and redistributions, and gradient reductions
// run once under GradSync::kLastMicrobatch. Hand-made plans, hand-counted tasks.

#include <doctest/doctest.h>

#include <string>

#include "plan/plan_summary.h"
#include "sim/step_program.h"
#include "support/plan_builder.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::PlanBuilder;
using testing::reduce_scatter;

// w (parameter), x, f = op(x, w) in layer 0 (recomputed under AC), g its backward, gw and gc
// the weight gradient's einsum and cast (gradient ops), with an all-gather of w before f and a
// reduce-scatter before gc, on dp = 4.
plan::Plan fsdp_plan(const core::TrainingOptions& training) {
  PlanBuilder b({4}, {"dp"}, 4);
  const auto w = b.param("w", 0);
  const auto x = b.op("x", 1, {});
  const auto f = b.op("f", 10, {x, w}, plan::Phase::kForward, 0);
  const auto g = b.op("g", 20, {f}, plan::Phase::kBackward, 0);
  const auto gw = b.op("gw", 7, {g}, plan::Phase::kBackward, 0);
  const auto gc = b.op("gc", 1, {gw}, plan::Phase::kBackward, 0, core::OpRole::kGrad);
  b.redistribute(f, 1, {all_gather({0}, 5)});
  b.redistribute(gc, 0, {reduce_scatter({0}, 6)});
  plan::Plan p = b.build();
  p.training = training;
  if (training.checkpoint != core::CheckpointPolicy::kNone) {
    p.ops[static_cast<std::size_t>(f)].schedule = plan::OpSchedule::kRecompute;
  }
  p.ops[static_cast<std::size_t>(gw)].schedule = plan::OpSchedule::kGradient;
  p.ops[static_cast<std::size_t>(gc)].schedule = plan::OpSchedule::kGradient;
  plan::summarize(p);
  return p;
}

std::vector<std::string> names(const StepProgram& prog) {
  std::vector<std::string> out;
  for (const Task& t : prog.tasks) out.push_back(t.name);
  return out;
}

std::int64_t count(const StepProgram& prog, collective::Collective c) {
  std::int64_t n = 0;
  for (const Task& t : prog.tasks) n += t.collective == c ? 1 : 0;
  return n;
}

TEST_CASE("step microbatches: full AC recomputes before the layer's backward") {
  const plan::Plan p = fsdp_plan({.checkpoint = core::CheckpointPolicy::kFull});
  auto prog = build_step_program(p, {});
  REQUIRE(prog.ok());
  // The recomputation's all-gather is prefetched one block ahead of the backward block (after
  // x, the op before f's block); f:recompute runs after f's block, before g.
  CHECK(names(*prog) == std::vector<std::string>{"w", "f[1].0:all_gather", "x",
                                                 "f:recompute[1].0:all_gather", "f", "f:recompute",
                                                 "g", "gw", "gc[0].0:reduce_scatter", "gc"});
  // g reads the recomputed f; f:recompute reads x and the recomputation's all-gather.
  CHECK(prog->tasks[6].deps == std::vector<std::int32_t>{5});
  CHECK(prog->tasks[5].deps == std::vector<std::int32_t>{2, 3});
  CHECK(prog->tasks[5].alone_us == 10);
  // The plan's cost counts both runs: compute 1 + 2 x 10 + 20 + 7 + 1, all-gathers 2 x 5 plus
  // the reduce-scatter 6.
  CHECK(p.cost.compute_us == 49);
  CHECK(p.cost.communication_us == 16);
}

TEST_CASE("step microbatches: collectives per step with grad_accum 4, with and without sync") {
  for (auto sync : {core::GradSync::kEveryMicrobatch, core::GradSync::kLastMicrobatch}) {
    const plan::Plan p = fsdp_plan(
        {.checkpoint = core::CheckpointPolicy::kFull, .grad_accum = 4, .grad_sync = sync});
    auto prog = build_step_program(p, {});
    REQUIRE(prog.ok());
    const bool once = sync == core::GradSync::kLastMicrobatch;
    // Per microbatch: 6 ops, f's recomputation, two all-gathers; the reduce-scatter in every
    // microbatch, or in the last one only.
    CHECK(prog->tasks.size() == (once ? 4 * 9 + 1 : 4 * 10));
    CHECK(count(*prog, collective::Collective::kAllGather) == 8);
    CHECK(count(*prog, collective::Collective::kReduceScatter) == (once ? 1 : 4));
    CHECK(prog->tasks.front().name == "mb0.w");
    CHECK(prog->tasks.back().name == "mb3.gc");
    // The plan's summaries count the same runs.
    std::int64_t ag = 0, rs = 0;
    for (const plan::CollectiveSummary& c : p.collectives) {
      if (c.kind == collective::Collective::kAllGather) ag += c.count;
      if (c.kind == collective::Collective::kReduceScatter) rs += c.count;
    }
    CHECK(ag == 8);
    CHECK(rs == (once ? 1 : 4));
    CHECK(p.cost.compute_us == 4 * 49);
    CHECK(p.cost.communication_us == 8 * 5 + (once ? 6 : 4 * 6));
    // Without sync, the earlier microbatches' gc reads gw directly.
    if (once) {
      for (const Task& t : prog->tasks) {
        if (t.name == "mb0.gc")
          CHECK(prog->tasks[static_cast<std::size_t>(t.deps[0])].name == "mb0.gw");
      }
    }
  }
}

}  // namespace
}  // namespace dtplan::sim
