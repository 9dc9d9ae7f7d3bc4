// Solver benchmarks on synthetic problems shaped like LLaMA3 (solve/generate.h): the exact solver
// with and without the repeated-layer path and with a binding parameter-memory row, the greedy
// baseline, and the exact solver against CBC (AutoParallel's ILP) on the same 2-layer problem in
// the same run, reported as a time ratio; and the LP bound's kernels (solve/lp/min_kernels.h) in
// each build this CPU runs, the baseline (SSE2) last, on one edge matrix of n x n labels.
//
//   scripts/bench.sh Solve            # every benchmark below
//   scripts/bench.sh ExactVsCbc       # the CBC comparison only (CBC takes tens of seconds)

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "solve/generate.h"
#include "solve/ilp_solver.h"
#include "solve/lp/min_kernels.h"
#include "solve/solver.h"

namespace dtplan::solve {
namespace {

Problem llama(std::int32_t layers, bool memory, double label_scale = 1) {
  LayeredProblemSpec spec;
  spec.layers = layers;
  spec.nodes_per_layer = 300;
  spec.memory_row = memory;
  spec.memory_budget = 0.4;
  spec.label_scale = label_scale;
  spec.seed = 2024;
  return layered_problem(spec);
}

void report(benchmark::State& state, const Problem& p, const Solution& s) {
  const ProblemSize size = problem_size(p);
  state.counters["nodes"] = static_cast<double>(size.nodes);
  state.counters["edges"] = static_cast<double>(size.edges);
  state.counters["labels"] = static_cast<double>(size.labels);
  state.counters["objective_us"] = s.objective_us;
  state.counters["optimal"] = s.optimal ? 1 : 0;
  state.counters["width"] = s.stats.width;
  state.counters["shared_nodes"] = static_cast<double>(s.stats.repeat_interior_nodes);
}

void run(benchmark::State& state, const Problem& p, const Solver& solver, const SolveOptions& o) {
  Solution last;
  for (auto _ : state) {
    auto s = solver.solve(p, o);
    if (!s.ok()) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    last = std::move(s).value();
    benchmark::DoNotOptimize(last.labels.data());
  }
  report(state, p, last);
}

void BM_SolveExact_Llama8B(benchmark::State& state) {
  run(state, llama(32, false), *make_exact_solver(), {});
}
BENCHMARK(BM_SolveExact_Llama8B)->Unit(benchmark::kMillisecond);

void BM_SolveExact_Llama8B_Unrolled(benchmark::State& state) {
  SolveOptions o;
  o.repeats = RepeatMode::kUnroll;
  run(state, llama(32, false), *make_exact_solver(), o);
}
BENCHMARK(BM_SolveExact_Llama8B_Unrolled)->Unit(benchmark::kMillisecond);

void BM_SolveExact_Llama8B_Memory(benchmark::State& state) {
  run(state, llama(32, true), *make_exact_solver(), {});
}
BENCHMARK(BM_SolveExact_Llama8B_Memory)->Unit(benchmark::kMillisecond);

void BM_SolveExact_Llama70B(benchmark::State& state) {
  run(state, llama(80, false, 2.5), *make_exact_solver(), {});
}
BENCHMARK(BM_SolveExact_Llama70B)->Unit(benchmark::kMillisecond);

void BM_SolveGreedy_Llama8B(benchmark::State& state) {
  run(state, llama(32, false), *make_greedy_solver(), {});
}
BENCHMARK(BM_SolveGreedy_Llama8B)->Unit(benchmark::kMillisecond);

// Exact and CBC on the same 2-layer problem; counters: both times and cbc_over_exact.
void BM_SolveExactVsCbc_2Layers(benchmark::State& state) {
  const Problem p = llama(2, state.range(0) != 0);
  auto ilp = make_ilp_solver();
  if (!ilp.ok()) {
    state.SkipWithError(ilp.error().message.c_str());
    return;
  }
  const auto exact = make_exact_solver();
  SolveOptions o;
  o.time_limit_s = 600;
  for (auto _ : state) {
    constexpr int kRepeats = 20;  // the exact solve is short: time it over several runs
    const auto t0 = std::chrono::steady_clock::now();
    core::Result<Solution> e = exact->solve(p, o);
    for (int k = 1; k < kRepeats && e.ok(); ++k) e = exact->solve(p, o);
    const auto t1 = std::chrono::steady_clock::now();
    const auto c = (*ilp)->solve(p, o);
    const auto t2 = std::chrono::steady_clock::now();
    if (!e.ok() || !c.ok()) {
      state.SkipWithError((e.ok() ? c.error() : e.error()).message.c_str());
      return;
    }
    const double exact_s = std::chrono::duration<double>(t1 - t0).count() / kRepeats;
    const double cbc_s = std::chrono::duration<double>(t2 - t1).count();
    state.counters["exact_s"] = exact_s;
    state.counters["cbc_s"] = cbc_s;
    state.counters["cbc_over_exact"] = cbc_s / exact_s;
    state.counters["same_objective"] = e->objective_us == c->objective_us ? 1 : 0;
    state.counters["cbc_optimal"] = c->optimal ? 1 : 0;
    state.counters["ilp_variables"] = static_cast<double>(c->stats.ilp_variables);
    report(state, p, *e);
  }
}
BENCHMARK(BM_SolveExactVsCbc_2Layers)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

// range(0): the variant (0: the one used; the baseline is the last), range(1): labels per end.
void BM_MinKernels(benchmark::State& state) {
  const auto& variants = detail::min_kernel_variants();
  const auto v = static_cast<std::size_t>(state.range(0));
  if (v >= variants.size()) {
    state.SkipWithError("this CPU has fewer builds");
    return;
  }
  const auto n = static_cast<std::size_t>(state.range(1));
  std::vector<double> m(n * n), w(n), out(n);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<double>((i * 7919) % 1009);
  for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<double>((i * 31) % 17);
  const std::vector<char> live(n, 1);
  for (auto _ : state) {
    variants[v].rows(m.data(), w.data(), n, n, out.data());
    benchmark::DoNotOptimize(out.data());
    variants[v].columns(m.data(), w.data(), live.data(), n, n, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(variants[v].name);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(2 * n * n));
}
BENCHMARK(BM_MinKernels)->ArgsProduct({{0, 1, 2}, {32, 128}});

}  // namespace
}  // namespace dtplan::solve
