// Strategy enumeration of the LLaMA3-8B joint graph (32 layers, B=16, S=8192, ~8.2k nodes) on
// an 8x8 mesh with the h100-dgx profile. Baselines in the same run: BM_StrategyBaseline_CopyNodes
// copies the graph's nodes (the allocation work any pass over a graph of that size costs), and
// the NoCache variant enumerates every node from scratch (what the cache saves). Read the figures
// as ratios. Run: scripts/bench.sh Strategy
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "cost/hardware_io.h"
#include "graph/llama3_builder.h"
#include "strategy/family_counts.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy {
namespace {

const graph::Graph& llama3_8b() {
  static const graph::Graph g = graph::build_llama3(graph::Llama3Config{}).value();
  return g;
}

const cost::HardwareProfile& h100() {
  static const cost::HardwareProfile p = [] {
    auto r = cost::load_hardware("h100-dgx", cost::config_search(""), "bench");
    if (!r.ok()) std::abort();  // run from the source tree or set DTPLAN_CONFIG_DIR
    return r.value();
  }();
  return p;
}

const std::vector<std::int64_t> kMesh = {8, 8};

void BM_StrategyBaseline_CopyNodes(benchmark::State& state) {
  const std::vector<graph::Node> nodes(llama3_8b().nodes().begin(), llama3_8b().nodes().end());
  for (auto _ : state) {
    std::vector<graph::Node> copy = nodes;
    benchmark::DoNotOptimize(copy.data());
  }
  state.counters["nodes"] = static_cast<double>(nodes.size());
}
BENCHMARK(BM_StrategyBaseline_CopyNodes)->Unit(benchmark::kMillisecond);

void enumerate(benchmark::State& state, const EnumerateOptions& options) {
  std::int64_t strategies = 0;
  std::size_t distinct = 0;
  for (auto _ : state) {
    auto s = enumerate_graph(llama3_8b(), kMesh, h100(), options);
    if (!s.ok()) std::abort();
    strategies = s->total_strategies();
    distinct = s->distinct_count();
    benchmark::DoNotOptimize(s);
  }
  state.counters["nodes"] = static_cast<double>(llama3_8b().size());
  state.counters["strategies"] = static_cast<double>(strategies);
  state.counters["distinct"] = static_cast<double>(distinct);
}

void BM_StrategyEnumerateLlama3_8B_8x8(benchmark::State& state) { enumerate(state, {}); }
BENCHMARK(BM_StrategyEnumerateLlama3_8B_8x8)->Unit(benchmark::kMillisecond);

void BM_StrategyEnumerateLlama3_8B_8x8_NoCache(benchmark::State& state) {
  EnumerateOptions options;
  options.cache = false;
  enumerate(state, options);
}
BENCHMARK(BM_StrategyEnumerateLlama3_8B_8x8_NoCache)->Unit(benchmark::kMillisecond);

void BM_StrategyFamilyCountsLlama3_8B(benchmark::State& state) {
  const auto s = enumerate_graph(llama3_8b(), kMesh, h100()).value();
  for (auto _ : state) benchmark::DoNotOptimize(family_counts(llama3_8b(), s));
}
BENCHMARK(BM_StrategyFamilyCountsLlama3_8B)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dtplan::strategy
