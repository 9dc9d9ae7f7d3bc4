// Graph benchmarks: building the LLaMA3-8B joint graph (32 layers, B=16, S=8192) and the passes
// over it, each against BM_GraphBaseline_CopyNodes, which copies a vector of the same nodes (the
// allocation work any graph of that size costs). Read the figures as ratios to the baseline.

#include <benchmark/benchmark.h>

#include "graph/graph_io.h"
#include "graph/layer_groups.h"
#include "graph/llama3_builder.h"
#include "graph/repeat_regions.h"
#include "graph/validate.h"

namespace dtplan::graph {
namespace {

const Graph& llama3_8b() {
  static const Graph g = build_llama3(Llama3Config{}).value();
  return g;
}

void BM_GraphBaseline_CopyNodes(benchmark::State& state) {
  const std::vector<Node> nodes(llama3_8b().nodes().begin(), llama3_8b().nodes().end());
  for (auto _ : state) {
    std::vector<Node> copy = nodes;
    benchmark::DoNotOptimize(copy.data());
  }
  state.counters["nodes"] = static_cast<double>(nodes.size());
}
BENCHMARK(BM_GraphBaseline_CopyNodes)->Unit(benchmark::kMillisecond);

void BM_GraphBuildLlama3_8B(benchmark::State& state) {
  const Llama3Config config;  // 8B: 32 layers
  std::size_t nodes = 0;
  for (auto _ : state) {
    auto g = build_llama3(config);
    nodes = g->size();
    benchmark::DoNotOptimize(g);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}
BENCHMARK(BM_GraphBuildLlama3_8B)->Unit(benchmark::kMillisecond);

void BM_GraphValidateLlama3_8B(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(validate(llama3_8b()));
}
BENCHMARK(BM_GraphValidateLlama3_8B)->Unit(benchmark::kMillisecond);

void BM_GraphFindRepeatedLayers8B(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(find_repeated_layers(llama3_8b()));
}
BENCHMARK(BM_GraphFindRepeatedLayers8B)->Unit(benchmark::kMillisecond);

void BM_GraphInferLayers8B(benchmark::State& state) {
  Graph stripped = llama3_8b();
  for (std::size_t i = 0; i < stripped.size(); ++i) stripped.mutable_node(node_id(i)).layer = -1;
  for (auto _ : state) benchmark::DoNotOptimize(infer_layers(stripped));
}
BENCHMARK(BM_GraphInferLayers8B)->Unit(benchmark::kMillisecond);

void BM_GraphJsonRoundTrip8B(benchmark::State& state) {
  for (auto _ : state) {
    auto g = parse_graph_json(graph_to_json(llama3_8b()));
    benchmark::DoNotOptimize(g);
  }
}
BENCHMARK(BM_GraphJsonRoundTrip8B)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dtplan::graph
