// The redistribution executor on 64 ranks (mesh (8,8) dp,tp, flattened dp_tp, 8 GPUs per node),
// running whole plans with real data on the fake process group, against a plain memcpy of the
// same bytes in the same run. "Bytes" are, summed over the 64 ranks, each rank's source tensor
// plus its destination tensor (what a redistribution must at least read and write once); the
// baseline copies that many bytes between two sets of 64 buffers, timed right before every run
// with the wall clock (the machine may be shared), and `vs_memcpy` is the baseline's total time
// over the executor's: the executor's bytes per second relative to memcpy's.
// Run: scripts/bench.sh RedistExec
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cost/hardware_io.h"
#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"
#include "placement/local_shape.h"
#include "placement/placement_text.h"
#include "redist/cost_model.h"
#include "redist/planner.h"
#include "sim/fake_process_group.h"
#include "sim/redist_executor.h"

namespace dtplan::sim {
namespace {

constexpr std::int64_t kRanks = 64;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

redist::RedistPlan make_plan(const std::vector<std::int64_t>& shape, const std::string& from,
                             const std::string& to) {
  auto mesh = mesh::DeviceMesh::create({8, 8}, {"dp", "tp"}).value();
  (void)mesh::flatten(mesh).value();
  auto ctx = redist::MeshContext::make(mesh, 8, "h100-dgx").value();
  auto profile =
      cost::load_hardware("h100-dgx", cost::config_search(std::filesystem::current_path()), "bench")
          .value();
  redist::Planner planner(std::move(ctx),
                          redist::make_cost_model(redist::CostModelKind::kNccl, profile));
  const std::vector<std::int64_t> sizes = {8, 8};
  auto spec = [&](const std::string& text) {
    return placement::TensorSpec::make(shape, core::DType::kF32,
                                       placement::parse_placement_list(text, "bench").value(),
                                       sizes)
        .value();
  };
  return planner.plan_uncached(spec(from), spec(to), {redist::PlannerKind::kAuto, true}).value();
}

void BM_RedistExec(benchmark::State& state, std::vector<std::int64_t> shape, std::string from,
                   std::string to) {
  const redist::RedistPlan plan = make_plan(shape, from, to);
  const RedistExecutor ex = RedistExecutor::create(plan).value();
  FakeProcessGroup pg =
      FakeProcessGroup::create({.world_size = kRanks, .gpus_per_node = 8}).value();
  RankTensors inputs(kRanks);
  std::int64_t bytes = 0;
  for (std::int64_t r = 0; r < kRanks; ++r) {
    const auto c = *ex.coordinate(r);
    Tensor t = Tensor::zeros(core::DType::kF32,
                             placement::local_shape(plan.src, plan.mesh.shape, c).value())
                   .value();
    for (float& v : t.values<float>()) v = static_cast<float>(r);
    bytes += t.nbytes();
    bytes += placement::local_bytes(plan.dst, plan.mesh.shape, c).value();
    inputs.set(r, std::move(t));
  }
  std::vector<std::byte> src(static_cast<std::size_t>(bytes), std::byte{1});
  std::vector<std::byte> dst(static_cast<std::size_t>(bytes), std::byte{0});
  const std::int64_t chunk = bytes / kRanks;
  double memcpy_s = 0;
  double exec_s = 0;
  for (auto _ : state) {
    RankTensors t = inputs;
    pg.clear_trace();
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t r = 0; r < kRanks; ++r) {
      std::memcpy(dst.data() + r * chunk, src.data() + r * chunk, static_cast<std::size_t>(chunk));
    }
    benchmark::ClobberMemory();
    memcpy_s += seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    if (!ex.run(pg, t).ok()) state.SkipWithError("executor failed");
    benchmark::ClobberMemory();
    const double s = seconds_since(t1);
    exec_s += s;
    state.SetIterationTime(s);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["vs_memcpy"] = memcpy_s / exec_s;
  state.counters["steps"] = static_cast<double>(plan.steps.size());
  state.SetLabel(plan.trace);
}

const bool kRegistered = [] {
  struct Row {
    const char* name;
    std::vector<std::int64_t> shape;
    const char* from;
    const char* to;
  };
  const Row rows[] = {
      // One all_reduce on the flattened dp_tp mesh: 1 MiB per rank.
      {"allreduce_flat_1MiB", {512, 512}, "P(sum),P(sum)", "R,R"},
      // reduce_scatter on dp_tp: 1 MiB in, 16 KiB out per rank.
      {"reducescatter_flat_1MiB", {512, 512}, "P(sum),P(sum)", "S(0),S(0)"},
      // Shard -> shard transposition (gather, all_to_all, chunk): 64 KiB per rank.
      {"transpose_64KiB", {1024, 1024}, "S(0),S(1)", "S(1),S(0)"},
      // Uneven all_gather to replicated: 16 KiB -> about 1 MiB per rank.
      {"allgather_uneven", {500, 520}, "S(0),S(1)", "R,R"},
  };
  for (const Row& r : rows) {
    benchmark::RegisterBenchmark((std::string("BM_RedistExec/") + r.name).c_str(), BM_RedistExec,
                                 r.shape, std::string(r.from), std::string(r.to))
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
  }
  return true;
}();

}  // namespace
}  // namespace dtplan::sim
