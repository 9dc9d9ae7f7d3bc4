#include "sim/plan_simulation.h"

#include <map>
#include <string>

#include "placement/tensor_spec.h"
#include "redist/redist_state.h"
#include "sim/fake_process_group.h"
#include "sim/redist_executor.h"

namespace dtplan::sim {

namespace {

FakeProcessGroupOptions group_options(std::int64_t world_size, const redist::RedistPlan& plan,
                                      const SimulateOptions& options) {
  FakeProcessGroupOptions pg_options;
  pg_options.world_size = world_size;
  pg_options.gpus_per_node = plan.mesh.gpus_per_node;
  pg_options.mode = DataMode::kCostOnly;
  pg_options.hardware = options.hardware;
  return pg_options;
}

// One redistribution through `pg`, (re)created here when empty or made for another world; its
// trace is reset first, so calls are numbered from 0 as on a new group. A model plan's
// redistributions share one group: its cost model's memo is worth keeping across them.
core::Result<RedistSimulation> run_redistribution(const redist::RedistPlan& plan,
                                                  const SimulateOptions& options,
                                                  std::optional<FakeProcessGroup>& pg) {
  DTPLAN_TRY(RedistExecutor ex, RedistExecutor::create(plan));
  RedistSimulation out;
  out.world_size = options.world_size == 0 ? ex.world_size() : options.world_size;
  if (out.world_size < ex.world_size()) {
    return core::Error::bad_input("a world of " + std::to_string(out.world_size) +
                                  " ranks is smaller than the plan's mesh (ranks up to " +
                                  std::to_string(ex.world_size() - 1) + ")");
  }
  const FakeProcessGroupOptions pg_options = group_options(out.world_size, plan, options);
  if (!pg || pg->world_size() != pg_options.world_size ||
      pg->options().gpus_per_node != pg_options.gpus_per_node) {
    DTPLAN_TRY(FakeProcessGroup created, FakeProcessGroup::create(pg_options));
    pg.emplace(std::move(created));
  }
  pg->reset_trace();
  RankTensors tensors(out.world_size);
  for (std::int64_t r : ex.ranks()) {
    const std::vector<std::int64_t> local =
        redist::local_shape(plan.src.shape(), plan.start, plan.mesh.shape, *ex.coordinate(r));
    DTPLAN_TRY(Tensor t, Tensor::shape_only(plan.src.dtype(), local));
    tensors.set(r, std::move(t));
  }
  for (std::size_t i = 0; i < ex.num_steps(); ++i) {
    const std::size_t before = pg->trace().size();
    DTPLAN_CHECK(ex.run_step(*pg, i, tensors));
    out.steps.emplace_back(pg->trace().begin() + static_cast<std::ptrdiff_t>(before),
                           pg->trace().end());
  }
  if (options.data) {
    VerifyOptions v = options.verify;
    v.world_size = out.world_size;
    v.hardware = options.hardware;
    auto report = verify_plan(plan, v);
    if (report.ok()) {
      out.verify = std::move(report).value();
    } else if (report.error().kind == core::ErrorKind::kUnsupported) {
      out.skipped = report.error().message;
    } else {
      return std::move(report).error().with_context("--data");
    }
  }
  return out;
}

}  // namespace

core::Result<RedistSimulation> simulate_redistribution(const redist::RedistPlan& plan,
                                                       const SimulateOptions& options) {
  std::optional<FakeProcessGroup> pg;
  return run_redistribution(plan, options, pg);
}

core::Result<ModelSimulation> simulate_model_plan(const plan::Plan& plan,
                                                  const SimulateOptions& options) {
  ModelSimulation out;
  // Identical redistributions (the mesh is shared): keyed by specs and transforms.
  std::map<std::string, std::size_t> seen;
  std::optional<FakeProcessGroup> pg;
  for (std::size_t i = 0; i < plan.redistributions.size(); ++i) {
    const plan::PlanRedistribution& r = plan.redistributions[i];
    std::string key =
        placement::to_string(r.plan.src) + "|" + placement::format_placement_list(r.plan.dst) + "|";
    for (const redist::PlanStep& s : r.plan.steps) key += redist::to_string(s.transform) + " ";
    // An identical redistribution (a repeated layer's) simulates identically: its result is
    // copied, data run included.
    core::Result<RedistSimulation> sim = RedistSimulation{};
    if (auto prior = seen.find(key); prior != seen.end()) {
      sim = out.redistributions[prior->second];
    } else {
      sim = run_redistribution(r.plan, options, pg);
      if (!sim.ok()) {
        return std::move(sim).error().with_context("redistribution " + std::to_string(i) +
                                                   " (consumer " + std::to_string(r.consumer) +
                                                   " slot " + std::to_string(r.slot) + ")");
      }
      seen.emplace(std::move(key), i);
      if (sim->verify) ++out.distinct_verified;
    }
    for (const auto& step : sim->steps) {
      out.collectives += static_cast<std::int64_t>(step.size());
      if (!step.empty()) ++out.calls;
    }
    if (sim->verify) {
      ++out.verified;
      out.wrong_elements += sim->verify->wrong_elements;
      out.replicas_bitwise_equal =
          out.replicas_bitwise_equal && sim->verify->replicas_bitwise_equal;
    }
    if (!sim->skipped.empty()) ++out.skipped;
    out.redistributions.push_back(std::move(sim).value());
  }
  return out;
}

}  // namespace dtplan::sim
