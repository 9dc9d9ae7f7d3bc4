// Redistribution planning speed: plans per second of the greedy and the exact min-cost planner
// over every supported pair of placements (R, P(sum), S(0), S(1) per mesh dim) of a bf16
// [64, 96] tensor on a (2,2,2) and a (2,2,2,2) mesh (dim names a..d, flattened a,b and c,d),
// with the plan cache cold (plan_uncached: the step-price memo stays warm, as in a long-lived
// planner; counters give the mean and worst time of one pass over every pair) and warm (plan),
// and the bare search. Baseline in the same run: building the two
// TensorSpecs of each pair (what any plan request starts from). items_per_second = plans.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <random>
#include <vector>

#include "cost/hardware_io.h"
#include "mesh/mesh_ops.h"
#include "redist/min_cost_planner.h"
#include "redist/planner.h"

namespace {

using dtplan::placement::Placement;
using dtplan::placement::TensorSpec;
using namespace dtplan::redist;

const std::vector<std::int64_t> kShape = {64, 96};

struct Pairs {
  std::vector<std::int64_t> mesh;
  std::vector<std::vector<Placement>> lists;
  std::vector<std::pair<TensorSpec, TensorSpec>> specs;
};

// Every placement list over {R, P(sum), S(0), S(1)} and every supported (src, dst) pair.
const Pairs& pairs(int ndim) {
  static std::unique_ptr<Pairs> cache[5];
  if (cache[ndim]) return *cache[ndim];
  auto p = std::make_unique<Pairs>();
  p->mesh.assign(static_cast<std::size_t>(ndim), 2);
  const std::vector<Placement> one = {Placement::replicate(), Placement::partial(),
                                      Placement::shard(0), Placement::shard(1)};
  std::vector<std::vector<Placement>> lists = {{}};
  for (int d = 0; d < ndim; ++d) {
    std::vector<std::vector<Placement>> next;
    for (const auto& l : lists) {
      for (const Placement& x : one) {
        next.push_back(l);
        next.back().push_back(x);
      }
    }
    lists = std::move(next);
  }
  for (const auto& a : lists) {
    for (const auto& b : lists) {
      bool ok = true;
      for (std::size_t m = 0; m < a.size(); ++m) {
        ok = ok && (a[m] == b[m] || !b[m].is_partial() || a[m].is_replicate());
      }
      if (!ok) continue;
      p->specs.emplace_back(
          TensorSpec::make(kShape, dtplan::core::DType::kBF16, a, p->mesh).value(),
          TensorSpec::make(kShape, dtplan::core::DType::kBF16, b, p->mesh).value());
    }
  }
  // A fixed shuffle, so that any prefix of the pairs a benchmark reaches is a fair sample.
  std::shuffle(p->specs.begin(), p->specs.end(), std::mt19937_64(20260601));
  p->lists = std::move(lists);
  cache[ndim] = std::move(p);
  return *cache[ndim];
}

double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

std::unique_ptr<Planner> make(int ndim) {
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  auto mesh = dtplan::mesh::DeviceMesh::create(
                  std::vector<std::int64_t>(static_cast<std::size_t>(ndim), 2),
                  std::vector<std::string>(names.begin(), names.begin() + ndim))
                  .value();
  dtplan::mesh::flatten(dtplan::mesh::slice(mesh, std::vector<std::string>{"a", "b"}).value())
      .value();
  if (ndim == 4) {
    dtplan::mesh::flatten(dtplan::mesh::slice(mesh, std::vector<std::string>{"c", "d"}).value())
        .value();
  }
  auto profile =
      dtplan::cost::load_hardware(
          "h100-dgx", dtplan::cost::config_search(std::filesystem::current_path()), "bench")
          .value();
  return std::make_unique<Planner>(MeshContext::make(mesh, 8, "h100-dgx").value(),
                                   make_cost_model(CostModelKind::kNccl, profile));
}

void BM_RedistBaselineMakeSpecs(benchmark::State& state) {
  const Pairs& p = pairs(static_cast<int>(state.range(0)));
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& [a, b] = p.specs[i++ % p.specs.size()];
    auto x = TensorSpec::make(kShape, dtplan::core::DType::kBF16, a.placements(), p.mesh);
    auto y = TensorSpec::make(kShape, dtplan::core::DType::kBF16, b.placements(), p.mesh);
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RedistBaselineMakeSpecs)->Arg(3)->Arg(4);

void plan_all(benchmark::State& state, PlannerKind kind, bool cached) {
  const Pairs& p = pairs(static_cast<int>(state.range(0)));
  auto planner = make(static_cast<int>(state.range(0)));
  const PlanOptions o{kind, true};
  for (const auto& [a, b] : p.specs) planner->plan(a, b, o).value();  // warm both caches
  if (!cached) {
    // One timed pass over every pair (thread CPU time, so that preemption by other processes
    // does not count): the mean and the worst plan.
    double total_us = 0, worst_us = 0;
    for (const auto& [a, b] : p.specs) {
      const double start = thread_cpu_us();
      benchmark::DoNotOptimize(planner->plan_uncached(a, b, o));
      const double took = thread_cpu_us() - start;
      total_us += took;
      worst_us = std::max(worst_us, took);
    }
    state.counters["all_pairs_mean_us"] = total_us / static_cast<double>(p.specs.size());
    state.counters["all_pairs_max_us"] = worst_us;
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& [a, b] = p.specs[i++ % p.specs.size()];
    if (cached) {
      benchmark::DoNotOptimize(planner->plan(a, b, o));
    } else {
      benchmark::DoNotOptimize(planner->plan_uncached(a, b, o));
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["pairs"] = static_cast<double>(p.specs.size());
}

void BM_RedistGreedyUncached(benchmark::State& s) { plan_all(s, PlannerKind::kGreedy, false); }
void BM_RedistGreedyCached(benchmark::State& s) { plan_all(s, PlannerKind::kGreedy, true); }
void BM_RedistMinCostUncached(benchmark::State& s) { plan_all(s, PlannerKind::kMinCost, false); }
void BM_RedistMinCostCached(benchmark::State& s) { plan_all(s, PlannerKind::kMinCost, true); }
BENCHMARK(BM_RedistGreedyUncached)->Arg(3)->Arg(4);
BENCHMARK(BM_RedistGreedyCached)->Arg(3)->Arg(4);
BENCHMARK(BM_RedistMinCostUncached)->Arg(3)->Arg(4);
BENCHMARK(BM_RedistMinCostCached)->Arg(3)->Arg(4);

// The bare A* search (no plan assembly, pricing replay or merge scan).
void BM_RedistMinCostSearch(benchmark::State& state) {
  const Pairs& p = pairs(static_cast<int>(state.range(0)));
  auto planner = make(static_cast<int>(state.range(0)));
  StepPricer pricer(planner->mesh(), planner->model());
  MinCostPlanner search(pricer);
  std::vector<std::pair<RedistState, RedistState>> states;
  for (const auto& [a, b] : p.specs) states.emplace_back(state_of(a), state_of(b));
  for (const auto& [a, b] : states)
    search.plan(kShape, dtplan::core::DType::kBF16, a, b, {}).value();
  std::size_t i = 0, settled = 0;
  for (auto _ : state) {
    const auto& [a, b] = states[i++ % states.size()];
    auto r = search.plan(kShape, dtplan::core::DType::kBF16, a, b, {});
    settled += r->settled;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["settled_per_plan"] =
      static_cast<double>(settled) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RedistMinCostSearch)->Arg(3)->Arg(4);

}  // namespace
