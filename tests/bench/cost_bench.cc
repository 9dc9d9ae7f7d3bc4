// Collective cost evaluations per second: the NCCL model computed from scratch (the baseline)
// against the same model behind CachedModel, on the mix of queries a planner makes (a few
// collectives on a few groups over many sizes). Run: scripts/bench.sh Cost
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "cost/cached_model.h"
#include "cost/hardware_io.h"
#include "cost/nccl_model.h"

namespace {

using dtplan::collective::Collective;
using dtplan::cost::GroupTopology;

struct Query {
  Collective collective;
  std::int64_t bytes;
  GroupTopology topology;
};

const dtplan::cost::HardwareProfile& h100() {
  static const dtplan::cost::HardwareProfile p = [] {
    auto r = dtplan::cost::load_hardware("h100-dgx", dtplan::cost::config_search(""), "bench");
    if (!r.ok()) std::abort();  // run from the source tree or set DTPLAN_CONFIG_DIR
    return r.value();
  }();
  return p;
}

// 4 collectives x 6 groups (the dims and flattened dims of an 8 x 8 mesh and a 2 x 4 x 8 mesh)
// x 64 sizes, visited in a fixed shuffled order.
const std::vector<Query>& queries() {
  static const std::vector<Query> qs = [] {
    const Collective colls[] = {Collective::kAllGather, Collective::kReduceScatter,
                                Collective::kAllReduce, Collective::kAllToAll};
    const GroupTopology groups[] = {
        dtplan::cost::uniform_topology(1, 8), dtplan::cost::uniform_topology(8, 1),
        dtplan::cost::uniform_topology(8, 8), dtplan::cost::uniform_topology(1, 4),
        dtplan::cost::uniform_topology(2, 1), dtplan::cost::uniform_topology(4, 8)};
    std::vector<Query> out;
    for (Collective c : colls) {
      for (const GroupTopology& g : groups) {
        for (int i = 0; i < 64; ++i) out.push_back({c, std::int64_t{4096} << (i % 20), g});
      }
    }
    std::mt19937_64 rng(2024);
    std::shuffle(out.begin(), out.end(), rng);
    return out;
  }();
  return qs;
}

void run(benchmark::State& state, const dtplan::cost::CollectiveModel& model) {
  const std::vector<Query>& qs = queries();
  std::size_t i = 0;
  for (auto _ : state) {
    const Query& q = qs[i];
    auto r = model.cost(q.collective, q.bytes, q.topology);
    benchmark::DoNotOptimize(r);
    if (++i == qs.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_CostNcclUncached(benchmark::State& state) {
  dtplan::cost::NcclModel model(h100());
  run(state, model);
}
BENCHMARK(BM_CostNcclUncached);

void BM_CostNcclCached(benchmark::State& state) {
  dtplan::cost::CachedModel model(std::make_unique<dtplan::cost::NcclModel>(h100()));
  run(state, model);
}
BENCHMARK(BM_CostNcclCached);

}  // namespace
