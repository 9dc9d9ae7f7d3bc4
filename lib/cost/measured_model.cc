#include "cost/measured_model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace dtplan::cost {

double measured_time_us(const MeasuredTable& table, std::int64_t bytes) {
  const std::vector<MeasuredPoint>& pts = table.points;
  if (bytes <= pts.front().size_bytes) return pts.front().time_us;
  const MeasuredPoint& last = pts.back();
  if (bytes >= last.size_bytes) {
    double slope = last.time_us / static_cast<double>(last.size_bytes);  // last point's algbw
    if (pts.size() >= 2) {
      const MeasuredPoint& prev = pts[pts.size() - 2];
      double seg =
          (last.time_us - prev.time_us) / static_cast<double>(last.size_bytes - prev.size_bytes);
      if (seg > 0) slope = seg;
    }
    return last.time_us + slope * static_cast<double>(bytes - last.size_bytes);
  }
  // First point with size > bytes; its predecessor has size <= bytes.
  auto hi =
      std::upper_bound(pts.begin(), pts.end(), bytes,
                       [](std::int64_t b, const MeasuredPoint& p) { return b < p.size_bytes; });
  const MeasuredPoint& b = *hi;
  const MeasuredPoint& a = *(hi - 1);
  double w =
      (std::log(static_cast<double>(bytes)) - std::log(static_cast<double>(a.size_bytes))) /
      (std::log(static_cast<double>(b.size_bytes)) - std::log(static_cast<double>(a.size_bytes)));
  return a.time_us + w * (b.time_us - a.time_us);
}

MeasuredModel::MeasuredModel(HardwareProfile profile, std::unique_ptr<CollectiveModel> fallback)
    : profile_(std::move(profile)), fallback_(std::move(fallback)) {}

core::Result<CollectiveCost> MeasuredModel::cost(collective::Collective collective,
                                                 std::int64_t bytes,
                                                 const GroupTopology& topology) const {
  const MeasuredTable* table = find_measured(profile_, collective, topology);
  if (table == nullptr || bytes <= 0) return fallback_->cost(collective, bytes, topology);
  DTPLAN_CHECK(check_topology(profile_, topology));
  CollectiveCost raw;
  raw.time_us = measured_time_us(*table, bytes);
  raw.bandwidth_us = raw.time_us;
  raw.algorithm = Algorithm::kMeasured;
  raw.protocol = Protocol::kNone;
  return finish_cost(profile_, collective, bytes, topology, raw);
}

}  // namespace dtplan::cost
