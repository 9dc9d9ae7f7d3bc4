// Local-shape computation for every rank of a 4-D mesh (the planner asks for it per rank and
// per candidate spec), against a baseline loop of the same size: the same coordinate walk with
// plain even division and no validation. Compare the two per-rank times of one run.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <vector>

#include "placement/local_shape.h"
#include "placement/placement_text.h"

namespace dtplan::placement {
namespace {

constexpr std::array<std::int64_t, 4> kMesh = {4, 4, 2, 8};  // 256 ranks

TensorSpec bench_spec() {
  auto list = parse_placement_list("S(0)[1],S(0)[0],_S(1,2),S(2)", "bench").value();
  return TensorSpec::make({4099, 1023, 257}, core::DType::kBF16, list, kMesh).value();
}

// Advances a row-major coordinate; false after the last one.
bool next_coord(std::array<std::int64_t, 4>& coord) {
  for (std::size_t k = coord.size(); k > 0; --k) {
    if (++coord[k - 1] < kMesh[k - 1]) return true;
    coord[k - 1] = 0;
  }
  return false;
}

void BM_PlacementLocalShapeAllRanks(benchmark::State& state) {
  const TensorSpec spec = bench_spec();
  std::vector<std::int64_t> out(spec.tensor_rank());
  std::int64_t ranks = 0;
  for (auto _ : state) {
    std::array<std::int64_t, 4> coord = {0, 0, 0, 0};
    do {
      benchmark::DoNotOptimize(local_shape_into(spec, kMesh, coord, out).ok());
      benchmark::DoNotOptimize(out.data());
      ++ranks;
    } while (next_coord(coord));
  }
  state.SetItemsProcessed(ranks);
}
BENCHMARK(BM_PlacementLocalShapeAllRanks);

// Baseline: the same walk over all ranks, each dim divided evenly by the sizes of the mesh
// dims that split it (what a planner without uneven or ordered sharding would do).
void BM_PlacementLocalShapeAllRanksBaseline(benchmark::State& state) {
  const TensorSpec spec = bench_spec();
  const std::array<std::size_t, 4> split_dim = {0, 0, 1, 2};
  std::vector<std::int64_t> out(spec.tensor_rank());
  std::int64_t ranks = 0;
  for (auto _ : state) {
    std::array<std::int64_t, 4> coord = {0, 0, 0, 0};
    do {
      std::copy(spec.shape().begin(), spec.shape().end(), out.begin());
      for (std::size_t m = 0; m < kMesh.size(); ++m) {
        benchmark::DoNotOptimize(coord[m]);
        out[split_dim[m]] /= kMesh[m];
      }
      benchmark::DoNotOptimize(out.data());
      ++ranks;
    } while (next_coord(coord));
  }
  state.SetItemsProcessed(ranks);
}
BENCHMARK(BM_PlacementLocalShapeAllRanksBaseline);

}  // namespace
}  // namespace dtplan::placement
