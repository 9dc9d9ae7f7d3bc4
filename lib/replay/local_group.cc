#include "replay/local_group.h"

#include <cassert>
#include <chrono>

namespace dtplan::replay {

core::Result<std::unique_ptr<LocalReplayGroup>> LocalReplayGroup::create(
    sim::FakeProcessGroupOptions options) {
  DTPLAN_TRY(sim::FakeProcessGroup fake, sim::FakeProcessGroup::create(std::move(options)));
  return std::unique_ptr<LocalReplayGroup>(new LocalReplayGroup(std::move(fake)));
}

core::Status LocalReplayGroup::run(const CollectiveCall& call, RankTensors& tensors) {
  return fake_.run(call, tensors);
}

std::vector<std::int64_t> LocalReplayGroup::held_ranks() const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(world_size()));
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = static_cast<std::int64_t>(r);
  return out;
}

core::Result<double> LocalReplayGroup::run_timed(const CollectiveCall& call, RankTensors& tensors,
                                                 int launches) {
  assert(launches >= 1);
  // Launch 0 runs on `tensors` itself; the others on copies, so every launch sees the inputs.
  std::vector<RankTensors> copies(static_cast<std::size_t>(launches - 1), tensors);
  const auto start = std::chrono::steady_clock::now();
  for (RankTensors& copy : copies) DTPLAN_CHECK(fake_.run(call, copy));
  DTPLAN_CHECK(fake_.run(call, tensors));
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(stop - start).count();
}

core::Result<std::vector<double>> LocalReplayGroup::reduce_over_world(std::vector<double> values,
                                                                      ReduceOp /*op*/) {
  return values;  // one process: every op is the identity
}

}  // namespace dtplan::replay
