#pragma once
// Measured tables override the formulas: MeasuredModel answers from a profile's measured table
// when one matches (collective, group layout) exactly, and from its fallback model otherwise.
// Between two measured sizes the time is interpolated linearly in log(size); below the smallest
// size it is the smallest size's time (a latency floor); above the largest it continues at the
// last segment's bandwidth (the last point's algbw when that segment is flat).
//
//   points (1 KiB, 20 us), (4 KiB, 30 us): 2 KiB -> 25 us (half-way in log size)

#include <memory>

#include "cost/collective_model.h"

namespace dtplan::cost {

// The interpolated time of a table. @pre the table passed validate() (sizes increasing, times
// non-decreasing), bytes >= 0. @post non-decreasing in bytes; exact at the measured sizes.
double measured_time_us(const MeasuredTable& table, std::int64_t bytes);

class MeasuredModel final : public CollectiveModel {
 public:
  // @pre validate(profile) passed; fallback != nullptr.
  MeasuredModel(HardwareProfile profile, std::unique_ptr<CollectiveModel> fallback);

  // The fallback's name: the tables refine a model, they are not one.
  [[nodiscard]] std::string_view name() const override { return fallback_->name(); }
  [[nodiscard]] core::Result<CollectiveCost> cost(collective::Collective collective,
                                                  std::int64_t bytes,
                                                  const GroupTopology& topology) const override;

 private:
  HardwareProfile profile_;
  std::unique_ptr<CollectiveModel> fallback_;
};

}  // namespace dtplan::cost
