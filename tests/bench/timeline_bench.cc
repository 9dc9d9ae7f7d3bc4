// The step simulator on a large synthetic plan: an FSDP + TP model on a (dp 8, tp 8) mesh of 64
// ranks on 4-GPU nodes (so tp groups span two nodes and share NICs with dp groups), 116 layers of
// 9 parameters, 20 forward and 40 backward ops each (10.1k ops), every weight all-gathered on dp
// in forward and backward, every gradient reduce-scattered on dp, and tp all-gathers /
// reduce-scatters around the blocks: 4.4k collectives, 14.5k tasks, 0.93M (rank, task) pairs.
// Items are (rank, task) pairs simulated.
// Baselines in the same run: the same plan without contention (no link bookkeeping), and a
// bare binary heap pushing and popping one event per (rank, task) pair (what a simulator with an
// event per pair would at least cost; the engine batches compute tasks that start together).
// Run: scripts/bench.sh Timeline
#include <benchmark/benchmark.h>

#include <queue>
#include <random>

#include "mesh/device_mesh.h"
#include "redist/mesh_context.h"
#include "redist/planner.h"
#include "sim/step_engine.h"
#include "sim/timeline.h"

namespace dtplan::sim {
namespace {

using placement::Placement;
using redist::StepKind;

constexpr int kLayers = 116;

struct Synth {
  plan::Plan plan;
  std::optional<placement::TensorSpec> spec;

  std::int32_t op(std::string name, double us, std::vector<std::int32_t> in, plan::Phase phase,
                  std::int32_t layer, core::OpRole role = core::OpRole::kNone) {
    plan::PlanOp o;
    o.name = std::move(name);
    o.op = role == core::OpRole::kParam ? "placeholder" : "mm";
    o.phase = phase;
    o.layer = layer;
    o.role = role;
    o.inputs = std::move(in);
    o.placements.assign(2, Placement::replicate());
    o.compute_us = us;
    plan.ops.push_back(std::move(o));
    return static_cast<std::int32_t>(plan.ops.size()) - 1;
  }

  void redist(std::int32_t consumer, std::int32_t slot, StepKind kind, std::int32_t dim,
              double us) {
    plan::PlanRedistribution rd{
        consumer, slot,
        plan.ops[static_cast<std::size_t>(consumer)].inputs[static_cast<std::size_t>(slot)],
        redist::RedistPlan{plan.mesh, *spec, *spec}};
    redist::PlanStep step;
    step.transform.kind = kind;
    step.transform.mesh_dims = {dim};
    step.group_size = 8;
    step.bytes = 8 << 20;
    step.cost_us = us;
    rd.plan.steps.push_back(step);
    plan.redistributions.push_back(std::move(rd));
  }
};

const plan::Plan& synthetic_plan() {
  static const plan::Plan plan = [] {
    Synth s;
    auto mesh = mesh::DeviceMesh::create({8, 8}, {"dp", "tp"}).value();
    s.plan.mesh = redist::describe_mesh(redist::MeshContext::make(mesh, 4, "h100-dgx").value());
    s.spec = placement::TensorSpec::make({1024, 1024}, core::DType::kBF16,
                                         {Placement::replicate(), Placement::replicate()},
                                         s.plan.mesh.shape)
                 .value();
    std::mt19937_64 rng(8);
    std::uniform_real_distribution<double> cost(20, 200);
    std::vector<std::vector<std::int32_t>> params(kLayers);
    for (int l = 0; l < kLayers; ++l) {
      for (int p = 0; p < 9; ++p) {
        params[static_cast<std::size_t>(l)].push_back(
            s.op("l" + std::to_string(l) + ".w" + std::to_string(p), 0, {}, plan::Phase::kForward,
                 l, core::OpRole::kParam));
      }
    }
    std::int32_t x = s.op("embed", 50, {}, plan::Phase::kForward, -1);
    std::vector<std::int32_t> saved;
    for (int l = 0; l < kLayers; ++l) {
      const auto& w = params[static_cast<std::size_t>(l)];
      for (int k = 0; k < 20; ++k) {
        const std::string name = "l" + std::to_string(l) + ".f" + std::to_string(k);
        if (k < 9) {
          x = s.op(name, cost(rng), {x, w[static_cast<std::size_t>(k)]}, plan::Phase::kForward, l);
          s.redist(x, 1, StepKind::kAllGather, 0, cost(rng));
          if (k % 3 == 0) s.redist(x, 0, StepKind::kAllGather, 1, cost(rng) / 4);
        } else {
          x = s.op(name, cost(rng) / 4, {x}, plan::Phase::kForward, l);
          if (k % 5 == 0) s.redist(x, 0, StepKind::kReduceScatter, 1, cost(rng) / 4);
        }
        saved.push_back(x);
      }
    }
    std::int32_t g = s.op("loss", 30, {x}, plan::Phase::kBackward, -1);
    std::vector<std::int32_t> grads;
    for (int l = kLayers - 1; l >= 0; --l) {
      const auto& w = params[static_cast<std::size_t>(l)];
      for (int k = 0; k < 40; ++k) {
        const std::string name = "l" + std::to_string(l) + ".b" + std::to_string(k);
        const std::int32_t act = saved[static_cast<std::size_t>(l * 20 + k % 20)];
        if (k < 9) {
          g = s.op(name, cost(rng), {g, act, w[static_cast<std::size_t>(k)]},
                   plan::Phase::kBackward, l);
          s.redist(g, 2, StepKind::kAllGather, 0, cost(rng));
          grads.push_back(s.op(name + ".grad", cost(rng), {g, act}, plan::Phase::kBackward, l));
        } else {
          g = s.op(name, cost(rng) / 4, {g, act}, plan::Phase::kBackward, l);
          if (k % 5 == 0) s.redist(g, 0, StepKind::kAllGather, 1, cost(rng) / 4);
        }
      }
    }
    for (std::size_t k = 0; k < grads.size(); ++k) {
      const std::int32_t out = s.op("grad" + std::to_string(k), 0, {grads[k]},
                                    plan::Phase::kBackward, -1, core::OpRole::kOutput);
      s.redist(out, 0, StepKind::kReduceScatter, 0, 150);
    }
    std::sort(s.plan.redistributions.begin(), s.plan.redistributions.end(),
              [](const auto& a, const auto& b) {
                return std::pair(a.consumer, a.slot) < std::pair(b.consumer, b.slot);
              });
    return s.plan;
  }();
  return plan;
}

// `step_only`: the step's figures alone, as the sweep asks (its baseline: the full run above it).
// `symmetry` off: every rank simulated (the baseline of the rank classes, rank_symmetry.h; the
// 8x8 mesh on 4-GPU nodes has 8 classes).
void BM_Timeline(benchmark::State& state, bool contention, bool step_only, bool symmetry) {
  const plan::Plan& plan = synthetic_plan();
  TimelineOptions o;
  o.contention = contention;
  o.step_only = step_only;
  o.symmetry = symmetry;
  std::int64_t pairs = 0;
  double step = 0;
  for (auto _ : state) {
    auto tl = simulate_step(plan, o);
    if (!tl.ok()) {
      state.SkipWithError(tl.error().message.c_str());
      return;
    }
    pairs = tl->simulated_tasks;
    step = tl->step_time_us;
    benchmark::DoNotOptimize(tl);
  }
  state.SetItemsProcessed(state.iterations() * pairs);
  state.counters["ops"] = static_cast<double>(plan.ops.size());
  state.counters["collectives"] = static_cast<double>(plan.redistributions.size());
  state.counters["rank_tasks"] = static_cast<double>(pairs);
  state.counters["step_ms"] = step / 1000;
}
BENCHMARK_CAPTURE(BM_Timeline, contention, true, false, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Timeline, contention_every_rank, true, false, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Timeline, contention_step_only, true, true, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Timeline, contention_step_only_every_rank, true, true, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Timeline, no_contention, false, false, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Baseline: a bare heap of as many (time, seq) events as the simulator's (rank, task) pairs.
void BM_TimelineHeapBaseline(benchmark::State& state) {
  auto program = build_step_program(synthetic_plan(), {}).value();
  const auto n = static_cast<std::int64_t>(program.tasks.size() * program.ranks.size());
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dt(0, 100);
  for (auto _ : state) {
    std::priority_queue<std::pair<double, std::uint64_t>,
                        std::vector<std::pair<double, std::uint64_t>>, std::greater<>>
        heap;
    double now = 0;
    std::uint64_t seq = 0;
    for (int k = 0; k < 64; ++k) heap.emplace(dt(rng), seq++);
    for (std::int64_t i = 0; i < n; ++i) {
      now = heap.top().first;
      heap.pop();
      heap.emplace(now + dt(rng), seq++);
    }
    benchmark::DoNotOptimize(now);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_TimelineHeapBaseline)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace dtplan::sim
