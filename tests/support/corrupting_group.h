#pragma once
// A replay backend that is wrong on purpose, for the tests of lib/replay's checks: the fake
// process group behind the ReplayGroup interface (LocalReplayGroup), except that after every
// collective it flips bit 6 of the top byte of one rank's first output element (the exponent's
// top bit of a float, bit 30 or 62 of an integer), as a faulty library would.

#include <memory>

#include "replay/local_group.h"

namespace dtplan::testing {

class CorruptingGroup final : public replay::ReplayGroup {
 public:
  CorruptingGroup(std::unique_ptr<replay::LocalReplayGroup> inner, std::int64_t victim)
      : inner_(std::move(inner)), victim_(victim) {}
  [[nodiscard]] std::int64_t world_size() const override { return inner_->world_size(); }
  core::Status run(const replay::CollectiveCall& call, replay::RankTensors& tensors) override {
    DTPLAN_CHECK(inner_->run(call, tensors));
    if (tensors.has(victim_) && tensors.at(victim_).numel() > 0) {
      const std::int64_t top = tensors.at(victim_).element_bytes() - 1;
      tensors.at(victim_).data()[top] ^= std::byte{0x40};
    }
    return {};
  }
  [[nodiscard]] std::string_view backend_name() const override { return "corrupt"; }
  [[nodiscard]] std::vector<std::int64_t> held_ranks() const override {
    return inner_->held_ranks();
  }
  [[nodiscard]] std::int64_t process_index() const override { return 0; }
  core::Status barrier() override { return {}; }
  core::Result<double> run_timed(const replay::CollectiveCall& call, replay::RankTensors& tensors,
                                 int launches) override {
    return inner_->run_timed(call, tensors, launches);
  }
  core::Result<std::vector<double>> reduce_over_world(std::vector<double> values,
                                                      replay::ReduceOp op) override {
    return inner_->reduce_over_world(std::move(values), op);
  }

 private:
  std::unique_ptr<replay::LocalReplayGroup> inner_;
  std::int64_t victim_;
};

}  // namespace dtplan::testing
