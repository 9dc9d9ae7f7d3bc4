// Data movement of the fake process group at 64 ranks (one group, 8 GPUs per node), against a
// plain memcpy of the same bytes in the same run. "Bytes" are, summed over the 64 ranks, the
// larger of each rank's input and output tensor: 64 MiB for every collective here (all_gather
// 16 KiB in, 1 MiB out per rank; the others 1 MiB per rank). The baseline copies 64 buffers of
// 1 MiB into 64 others. The machine may be shared, so every iteration times the baseline right
// before the collective (both with the wall clock) and `vs_memcpy` is the baseline's total time
// over the collective's: its bytes per second relative to memcpy's under the same conditions
// (>= 0.5 is the target). BM_SimPgMemcpy reports the baseline alone.
// Run: scripts/bench.sh SimPg
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sim/fake_process_group.h"
#include "sim/half_float.h"

namespace dtplan::sim {
namespace {

using collective::Collective;
using core::DType;

constexpr std::int64_t kRanks = 64;
constexpr std::int64_t kRankBytes = 1 << 20;
constexpr std::int64_t kTotalBytes = kRanks * kRankBytes;

// Copies 64 source buffers of 1 MiB into 64 destination buffers.
struct MemcpyBaseline {
  std::vector<std::vector<std::byte>> src;
  std::vector<std::vector<std::byte>> dst;
  MemcpyBaseline()
      : src(kRanks, std::vector<std::byte>(kRankBytes, std::byte{1})),
        dst(kRanks, std::vector<std::byte>(kRankBytes, std::byte{0})) {}
  void run() {
    for (std::int64_t r = 0; r < kRanks; ++r) {
      std::memcpy(dst[static_cast<std::size_t>(r)].data(), src[static_cast<std::size_t>(r)].data(),
                  kRankBytes);
    }
    benchmark::ClobberMemory();
  }
};

MemcpyBaseline& baseline() {
  static MemcpyBaseline b;
  return b;
}

void BM_SimPgMemcpy(benchmark::State& state) {
  MemcpyBaseline& b = baseline();
  for (auto _ : state) b.run();
  state.SetBytesProcessed(state.iterations() * kTotalBytes);
}
BENCHMARK(BM_SimPgMemcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Tensor random_tensor(DType dtype, std::int64_t numel, std::mt19937_64& rng) {
  Tensor t = Tensor::uninitialized(dtype, {numel}).value();
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  if (dtype == DType::kBF16) {
    for (auto& v : t.values<std::uint16_t>()) v = f32_to_bf16(dist(rng));
  } else if (dtype == DType::kF16) {
    for (auto& v : t.values<std::uint16_t>()) v = f32_to_f16(dist(rng));
  } else {
    for (auto& v : t.values<float>()) v = dist(rng);
  }
  return t;
}

void BM_SimPg(benchmark::State& state, Collective c, DType dtype, OrderPolicy order) {
  FakeProcessGroup pg =
      FakeProcessGroup::create({.world_size = kRanks, .gpus_per_node = 8, .order = order}).value();
  Group all;
  for (std::int64_t r = 0; r < kRanks; ++r) all.push_back(r);
  const CollectiveCall call{c, {all}, ReduceOp::kSum, 0};
  const std::int64_t in_bytes = c == Collective::kAllGather ? kRankBytes / kRanks : kRankBytes;
  std::mt19937_64 rng(64);
  RankTensors inputs(kRanks);
  for (std::int64_t r = 0; r < kRanks; ++r) {
    inputs.set(r, random_tensor(dtype, in_bytes / core::dtype_bytes(dtype), rng));
  }
  const bool in_place = c == Collective::kAllReduce || c == Collective::kBroadcast;
  RankTensors t = inputs;
  MemcpyBaseline& b = baseline();
  double memcpy_s = 0;
  double collective_s = 0;
  for (auto _ : state) {
    if (!in_place) {
      t = inputs;
      pg.clear_trace();
    }
    const auto t0 = std::chrono::steady_clock::now();
    b.run();
    memcpy_s += seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    if (!pg.run(call, t).ok()) state.SkipWithError("collective failed");
    benchmark::ClobberMemory();
    const double s = seconds_since(t1);
    collective_s += s;
    state.SetIterationTime(s);
  }
  state.SetBytesProcessed(state.iterations() * kTotalBytes);
  state.counters["vs_memcpy"] = memcpy_s / collective_s;
}

struct Row {
  const char* name;
  Collective collective;
  DType dtype;
  OrderPolicy order;
};

const bool kRegistered = [] {
  const Row rows[] = {
      {"all_gather_f32", Collective::kAllGather, DType::kF32, OrderPolicy::kRing},
      {"all_to_all_f32", Collective::kAllToAll, DType::kF32, OrderPolicy::kRing},
      {"broadcast_f32", Collective::kBroadcast, DType::kF32, OrderPolicy::kRing},
      {"all_reduce_f32_ring", Collective::kAllReduce, DType::kF32, OrderPolicy::kRing},
      {"all_reduce_f32_tree", Collective::kAllReduce, DType::kF32, OrderPolicy::kTree},
      {"all_reduce_bf16_ring", Collective::kAllReduce, DType::kBF16, OrderPolicy::kRing},
      {"all_reduce_bf16_tree", Collective::kAllReduce, DType::kBF16, OrderPolicy::kTree},
      {"all_reduce_f16_ring", Collective::kAllReduce, DType::kF16, OrderPolicy::kRing},
      {"reduce_scatter_f32_ring", Collective::kReduceScatter, DType::kF32, OrderPolicy::kRing},
      {"reduce_scatter_bf16_ring", Collective::kReduceScatter, DType::kBF16, OrderPolicy::kRing},
  };
  for (const Row& r : rows) {
    benchmark::RegisterBenchmark((std::string("BM_SimPg/") + r.name).c_str(), BM_SimPg,
                                 r.collective, r.dtype, r.order)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
  }
  return true;
}();

}  // namespace
}  // namespace dtplan::sim
