#pragma once
// LocalReplayGroup: the fake process group (every rank in this process) behind the ReplayGroup
// interface, so that the replay executor and the timing harness run unchanged without MPI or
// GPUs (`dtplan replay --backend fake`, tests). It holds every rank; barrier() returns at once;
// run_timed() measures the wall clock of the fake's data movement; reduce_over_world() returns
// its input (one process).
//
//   auto pg = LocalReplayGroup::create({.world_size = 8}).value();
//   pg->held_ranks().size() == 8; pg->backend_name() == "fake"

#include <memory>

#include "replay/replay_group.h"
#include "sim/fake_process_group.h"

namespace dtplan::replay {

class LocalReplayGroup final : public ReplayGroup {
 public:
  // Errors as FakeProcessGroup::create.
  static core::Result<std::unique_ptr<LocalReplayGroup>> create(
      sim::FakeProcessGroupOptions options);

  [[nodiscard]] std::int64_t world_size() const override { return fake_.world_size(); }
  core::Status run(const CollectiveCall& call, RankTensors& tensors) override;

  [[nodiscard]] std::string_view backend_name() const override { return "fake"; }
  [[nodiscard]] std::vector<std::int64_t> held_ranks() const override;
  [[nodiscard]] std::int64_t process_index() const override { return 0; }
  core::Status barrier() override { return {}; }
  // Each launch runs the fake on its own copy of the inputs, made before the clock starts.
  core::Result<double> run_timed(const CollectiveCall& call, RankTensors& tensors,
                                 int launches) override;
  core::Result<std::vector<double>> reduce_over_world(std::vector<double> values,
                                                      ReduceOp op) override;

  // The wrapped fake (its trace records every call, timed launches included).
  [[nodiscard]] const sim::FakeProcessGroup& fake() const { return fake_; }

 private:
  explicit LocalReplayGroup(sim::FakeProcessGroup fake) : fake_(std::move(fake)) {}
  sim::FakeProcessGroup fake_;
};

}  // namespace dtplan::replay
