// The `dtplan plan` pipeline on real, graph-derived selection problems: LLaMA3-8B (B=16,
// S=8192) on the 8x8 H100 mesh of configs/meshes/8x8.json, exported once (strategies, default
// constraints, NCCL-model edge costs) and solved by the exact solver and by CBC (AutoParallel's
// ILP) in the same run. Counters: the exact solver's time with one thread (exact_1t_s) and with
// one per hardware thread (exact_s, what `dtplan plan` uses by default), CBC's (single-threaded),
// the ratios cbc_over_exact_1t and cbc_over_exact, and equal objectives; the exact solver without
// its LP bound (--bound-fixing off, one thread) as the baseline of no_lp_over_exact_1t. Also the
// whole pipeline
// (build + solve, all hardware threads as `dtplan plan`) at 32 layers, exact against greedy, and
// LLaMA3-70B with 80 layers on 512 ranks (BM_PlanSolver70B).
//
//   scripts/bench.sh solver
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "cost/hardware_io.h"
#include "graph/llama3_builder.h"
#include "graph/model_io.h"
#include "mesh/mesh_io.h"
#include "redist/planner.h"
#include "solve/ilp_solver.h"
#include "strategy/constraints.h"
#include "strategy/plan_model.h"
#include "strategy/selection_problem.h"
#include "strategy/torchtitan_pins.h"
#include "sweep/mesh_candidates.h"

namespace dtplan::strategy {
namespace {

const cost::HardwareProfile& h100() {
  static const cost::HardwareProfile p = [] {
    auto r = cost::load_hardware("h100-dgx", cost::config_search(""), "bench");
    if (!r.ok()) std::abort();  // run from the source tree or set DTPLAN_CONFIG_DIR
    return r.value();
  }();
  return p;
}

const mesh::LoadedMesh& mesh_8x8() {
  static const mesh::LoadedMesh m = [] {
    auto r = mesh::load_mesh_file("configs/meshes/8x8.json");
    if (!r.ok()) std::abort();
    return std::move(r).value();
  }();
  return m;
}

const graph::Graph& llama3_8b(std::int64_t layers) {
  static std::map<std::int64_t, graph::Graph> cache;
  auto it = cache.find(layers);
  if (it == cache.end()) {
    graph::Llama3Config c;
    c.name = "llama3-8b";
    c.n_layers = layers;
    it = cache.emplace(layers, graph::build_llama3(c).value()).first;
  }
  return it->second;
}

int hardware_threads() {
  return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

// The exported selection problem of LLaMA3-8B with `layers` layers on 8x8.
const solve::Problem& real_problem(std::int64_t layers) {
  static std::map<std::int64_t, solve::Problem> cache;
  auto it = cache.find(layers);
  if (it == cache.end()) {
    const graph::Graph& g = llama3_8b(layers);
    const auto sizes = mesh_8x8().root.shape();
    auto strategies = enumerate_graph(g, sizes, h100()).value();
    auto ctx = redist::MeshContext::make(mesh_8x8().root, 8, h100().name).value();
    EdgeCoster coster(std::make_unique<redist::Planner>(
        std::move(ctx), redist::make_cost_model(redist::CostModelKind::kNccl, h100())));
    const Constraints c = default_constraints(g, strategies, sizes.size());
    it = cache.emplace(layers, export_problem(g, strategies, c, coster).value().problem).first;
  }
  return it->second;
}

// Exact and CBC on the same real problem: counters exact_s, cbc_s, cbc_over_exact.
void BM_PlanSolverExactVsCbc(benchmark::State& state) {
  const solve::Problem& p = real_problem(state.range(0));
  auto ilp = solve::make_ilp_solver();
  if (!ilp.ok()) {
    state.SkipWithError(ilp.error().message.c_str());
    return;
  }
  const auto exact = solve::make_exact_solver();
  solve::SolveOptions o = default_solve_options();
  o.time_limit_s = 3600;
  solve::SolveOptions all = o;
  all.threads = hardware_threads();
  solve::SolveOptions no_lp = o;
  no_lp.bound_fixing = solve::BoundFixing::kOff;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto e = exact->solve(p, o);
    const auto t1 = std::chrono::steady_clock::now();
    auto e2 = exact->solve(p, all);
    const auto t2 = std::chrono::steady_clock::now();
    auto c = (*ilp)->solve(p, o);
    const auto t3 = std::chrono::steady_clock::now();
    auto plain = exact->solve(p, no_lp);
    const auto t4 = std::chrono::steady_clock::now();
    for (const auto* r : {&e, &e2, &c, &plain}) {
      if (!r->ok()) {
        state.SkipWithError(r->error().message.c_str());
        return;
      }
    }
    const double exact_1t_s = std::chrono::duration<double>(t1 - t0).count();
    const double exact_s = std::chrono::duration<double>(t2 - t1).count();
    const double cbc_s = std::chrono::duration<double>(t3 - t2).count();
    state.counters["exact_1t_s"] = exact_1t_s;
    state.counters["exact_s"] = exact_s;
    state.counters["cbc_s"] = cbc_s;
    state.counters["cbc_over_exact_1t"] = cbc_s / exact_1t_s;
    state.counters["cbc_over_exact"] = cbc_s / exact_s;
    const double no_lp_s = std::chrono::duration<double>(t4 - t3).count();
    state.counters["no_lp_s"] = no_lp_s;
    state.counters["no_lp_over_exact_1t"] = no_lp_s / exact_1t_s;
    state.counters["same_objective_no_lp"] =
        std::abs(e->objective_us - plain->objective_us) <= 1e-9 * e->objective_us ? 1 : 0;
    state.counters["same_labels_1t"] = e->labels == e2->labels ? 1 : 0;
    state.counters["objective_us"] = e->objective_us;
    state.counters["same_objective"] =
        std::abs(e->objective_us - c->objective_us) <= 1e-9 * e->objective_us ? 1 : 0;
    state.counters["exact_optimal"] = e->optimal ? 1 : 0;
    state.counters["cbc_optimal"] = c->optimal ? 1 : 0;
    state.counters["ilp_variables"] = static_cast<double>(c->stats.ilp_variables);
    state.counters["labels"] = static_cast<double>(solve::problem_size(p).labels);
  }
}
BENCHMARK(BM_PlanSolverExactVsCbc)
    ->Name("BM_PlanSolverExactVsCbc/solver_llama3_8b_8x8_layers")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// The whole pipeline (enumerate, export, solve, lower) at 32 layers: exact against greedy.
void BM_PlanSolverPipeline(benchmark::State& state) {
  const graph::Graph& g = llama3_8b(32);
  ModelPlanOptions o;
  o.solver = state.range(0) == 0 ? solve::SolverKind::kExact : solve::SolverKind::kGreedy;
  o.solve.threads = hardware_threads();
  o.solve.time_limit_s = 3600;
  for (auto _ : state) {
    auto r = plan_graph(g, mesh_8x8().root, h100(), o);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    state.counters["objective_us"] = r->plan.solver.objective_us;
    state.counters["optimal"] = r->plan.solver.optimal ? 1 : 0;
    state.counters["solve_s"] = r->stats.solve_s;
    state.counters["build_s"] = r->stats.enumerate_s + r->stats.export_s;
  }
}
BENCHMARK(BM_PlanSolverPipeline)
    ->Name("BM_PlanSolverPipeline/solver_llama3_8b_32_layers_exact0_greedy1")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// LLaMA3-70B, 80 layers, on 3-D meshes of 512 H100 ranks (dims dp,cp,tp with the flattened meshes
// the sweep creates), the whole pipeline as `dtplan plan --time-limit 8` runs it (all hardware
// threads), exact with --gap 0 and 1e-4 against greedy on the same problem: counters wall_s (the
// target: under 10 s), optimal, gap (objective over lower bound, minus 1) and greedy_over_exact
// (the greedy plan's cost over the exact one's).
void BM_PlanSolver70B(benchmark::State& state) {
  static const graph::Graph g = [] {
    auto m = graph::load_model("configs/models/llama3-70b.json");
    if (!m.ok()) std::abort();
    return std::move(m).value().graph;
  }();
  const std::vector<std::int64_t> shapes[] = {{8, 4, 16}, {8, 8, 8}};
  const sweep::MeshCandidate c{
      shapes[state.range(0)], {"dp", "cp", "tp"}, {{{"dp", "cp"}, ""}, {{"dp", "cp", "tp"}, ""}}};
  auto mesh = mesh::build_mesh(sweep::mesh_config(c, h100().name), std::string_view("bench"));
  if (!mesh.ok()) std::abort();
  ModelPlanOptions o;
  o.solve.threads = hardware_threads();
  o.solve.time_limit_s = 8;
  o.solve.relative_gap = state.range(1) == 0 ? 0 : 1e-4;
  ModelPlanOptions greedy = o;
  greedy.solver = solve::SolverKind::kGreedy;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = plan_graph(g, mesh->root, h100(), o);
    const auto t1 = std::chrono::steady_clock::now();
    auto gr = plan_graph(g, mesh->root, h100(), greedy);
    if (!r.ok() || !gr.ok()) {
      state.SkipWithError((r.ok() ? gr.error() : r.error()).message.c_str());
      return;
    }
    const plan::SolverSummary& s = r->plan.solver;
    state.counters["wall_s"] = std::chrono::duration<double>(t1 - t0).count();
    state.counters["solve_s"] = r->stats.solve_s;
    state.counters["build_s"] = r->stats.enumerate_s + r->stats.export_s;
    state.counters["optimal"] = s.optimal ? 1 : 0;
    state.counters["gap"] = s.objective_us / s.lower_bound_us - 1;
    state.counters["objective_us"] = s.objective_us;
    state.counters["greedy_over_exact"] = gr->plan.solver.objective_us / s.objective_us;
  }
}
BENCHMARK(BM_PlanSolver70B)
    ->Name("BM_PlanSolver70B/solver_llama3_70b_80_layers_mesh_8x4x16_0_8x8x8_1/gap_0_1e-4")
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// LLaMA3-70B, 80 layers, full activation checkpointing, batch 64, on 512 H100 ranks as
// torchtitan lays them out (dp_shard=64 x tp=8, FSDP2 and TP+SP), planned with
// `--parallelize torchtitan` (the pins fix every parameter, linear and residual, so the solver
// chooses only views, pointwise ops and redistributions) against the same problem without pins in
// the same run. Counters: pinned_s (the target: under 2 s), free_s, free_over_pinned (how much the
// pins shrink the work) and both optima.
void BM_PlanTorchtitan70B(benchmark::State& state) {
  graph::ModelOverrides overrides;
  overrides.batch = 64;
  overrides.checkpoint = graph::CheckpointPolicy::kFull;
  auto model = graph::load_model("configs/models/llama3-70b.json", overrides);
  const sweep::MeshCandidate c{{64, 8}, {"dp_shard", "tp"}, {{{"dp_shard", "tp"}, ""}}};
  auto mesh = mesh::build_mesh(sweep::mesh_config(c, h100().name), std::string_view("bench"));
  if (!model.ok() || !mesh.ok()) std::abort();
  auto pins = torchtitan_pins(c.names, c.shape, *model->llama3);
  if (!pins.ok()) std::abort();
  ModelPlanOptions free;
  free.solve.threads = hardware_threads();
  free.training = model->training;
  free.enumerate.strided_params = uses_strided_shard(*pins);
  ModelPlanOptions pinned = free;
  pinned.pins = *pins;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto p = plan_graph(model->graph, mesh->root, h100(), pinned);
    const auto t1 = std::chrono::steady_clock::now();
    auto f = plan_graph(model->graph, mesh->root, h100(), free);
    const auto t2 = std::chrono::steady_clock::now();
    if (!p.ok() || !f.ok()) {
      state.SkipWithError((p.ok() ? f.error() : p.error()).message.c_str());
      return;
    }
    const double pinned_s = std::chrono::duration<double>(t1 - t0).count();
    const double free_s = std::chrono::duration<double>(t2 - t1).count();
    state.counters["pinned_s"] = pinned_s;
    state.counters["free_s"] = free_s;
    state.counters["free_over_pinned"] = free_s / pinned_s;
    state.counters["pinned_optimal"] = p->plan.solver.optimal ? 1 : 0;
    state.counters["free_optimal"] = f->plan.solver.optimal ? 1 : 0;
    state.counters["pinned_over_free_cost"] =
        p->plan.solver.objective_us / f->plan.solver.objective_us;
  }
}
BENCHMARK(BM_PlanTorchtitan70B)
    ->Name("BM_PlanTorchtitan70B/llama3_70b_80_layers_full_ac_dp_shard_64_tp_8")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// LLaMA3-405B, 126 layers, batch 1024, on 8,192 H100 ranks (dp_replicate=16 x dp_shard=64 x
// tp=8, HSDP and TP+SP) pinned to torchtitan's plan, as one point of `dtplan sweep
// --parallelize torchtitan`, against the baseline of the same model's free optimum on 8 ranks
// (dp_shard=4 x tp=2) in the same run. Counters: pinned_s and baseline_s (wall, all hardware
// threads), pinned_over_baseline (the target: a few, so hundreds of points fit a minute),
// pinned_labels (the labels the pins leave the problem, selection_problem.h LabelScope) and the
// pinned plan's optimality.
void BM_PlanTorchtitan405B(benchmark::State& state) {
  graph::ModelOverrides overrides;
  overrides.batch = 1024;
  auto model = graph::load_model("configs/models/llama3-405b.json", overrides);
  const sweep::MeshCandidate big{{16, 64, 8}, {"dp_replicate", "dp_shard", "tp"}, {}};
  const sweep::MeshCandidate small{{4, 2}, {"dp_shard", "tp"}, {}};
  auto big_mesh = mesh::build_mesh(sweep::mesh_config(big, h100().name), std::string_view("bench"));
  auto small_mesh =
      mesh::build_mesh(sweep::mesh_config(small, h100().name), std::string_view("bench"));
  if (!model.ok() || !big_mesh.ok() || !small_mesh.ok()) std::abort();
  auto pins = torchtitan_pins(big.names, big.shape, *model->llama3);
  if (!pins.ok()) std::abort();
  ModelPlanOptions free;
  free.solve.threads = hardware_threads();
  free.training = model->training;
  ModelPlanOptions pinned = free;
  pinned.pins = *pins;
  pinned.enumerate.strided_params = uses_strided_shard(*pins);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto p = plan_graph(model->graph, big_mesh->root, h100(), pinned);
    const auto t1 = std::chrono::steady_clock::now();
    auto f = plan_graph(model->graph, small_mesh->root, h100(), free);
    const auto t2 = std::chrono::steady_clock::now();
    if (!p.ok() || !f.ok()) {
      state.SkipWithError((p.ok() ? f.error() : p.error()).message.c_str());
      return;
    }
    const double pinned_s = std::chrono::duration<double>(t1 - t0).count();
    const double baseline_s = std::chrono::duration<double>(t2 - t1).count();
    state.counters["pinned_s"] = pinned_s;
    state.counters["baseline_s"] = baseline_s;
    state.counters["pinned_over_baseline"] = pinned_s / baseline_s;
    state.counters["pinned_labels"] = static_cast<double>(p->stats.problem.labels);
    state.counters["pinned_optimal"] = p->plan.solver.optimal ? 1 : 0;
  }
}
BENCHMARK(BM_PlanTorchtitan405B)
    ->Name("BM_PlanTorchtitan405B/llama3_405b_126_layers_dp_replicate_16_dp_shard_64_tp_8")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace dtplan::strategy
