// DeviceMesh at scale: every process group of a 16x16x64 mesh (16,384 ranks), flatten + groups,
// and coordinates of every rank, against a baseline that writes the same number of ints.
// items_per_second counts group entries (or ranks) so the figures compare with the baseline.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"

namespace {

using dtplan::mesh::DeviceMesh;
using dtplan::mesh::mesh_dim;

const std::vector<std::int64_t> kShape = {16, 16, 64};
const std::vector<std::string> kNames = {"dp", "cp", "tp"};
constexpr std::int64_t kRanks = 16 * 16 * 64;

// Baseline: write 3 * 16,384 ints (what listing every group of the three dims writes).
void BM_MeshBaselineWriteInts(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<std::int64_t> out(3 * kRanks);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(i);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 3 * kRanks);
}
BENCHMARK(BM_MeshBaselineWriteInts);

void BM_MeshGroupsEveryDim(benchmark::State& state) {
  DeviceMesh m = DeviceMesh::create(kShape, kNames).value();
  for (auto _ : state) {
    for (int d = 0; d < m.ndim(); ++d) {
      auto g = m.groups(mesh_dim(d));
      benchmark::DoNotOptimize(g.values.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * 3 * kRanks);
}
BENCHMARK(BM_MeshGroupsEveryDim);

void BM_MeshCreateAndGroups(benchmark::State& state) {
  for (auto _ : state) {
    DeviceMesh m = DeviceMesh::create(kShape, kNames).value();
    for (int d = 0; d < m.ndim(); ++d) {
      auto g = m.groups(mesh_dim(d));
      benchmark::DoNotOptimize(g.values.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * 3 * kRanks);
}
BENCHMARK(BM_MeshCreateAndGroups);

// Flatten the non-contiguous (dp, tp) pair on a fresh root, then list its groups.
void BM_MeshFlattenGroups(benchmark::State& state) {
  std::vector<std::string> dims = {"dp", "tp"};
  for (auto _ : state) {
    DeviceMesh m = DeviceMesh::create(kShape, kNames).value();
    DeviceMesh f = dtplan::mesh::flatten(dtplan::mesh::slice(m, dims).value()).value();
    auto g = f.groups(mesh_dim(0));
    benchmark::DoNotOptimize(g.values.data());
  }
  state.SetItemsProcessed(state.iterations() * kRanks);
}
BENCHMARK(BM_MeshFlattenGroups);

void BM_MeshCoordinateEveryRank(benchmark::State& state) {
  DeviceMesh m = DeviceMesh::create(kShape, kNames).value();
  for (auto _ : state) {
    for (std::int64_t r = 0; r < kRanks; ++r) benchmark::DoNotOptimize(m.coordinate(r));
  }
  state.SetItemsProcessed(state.iterations() * kRanks);
}
BENCHMARK(BM_MeshCoordinateEveryRank);

}  // namespace
