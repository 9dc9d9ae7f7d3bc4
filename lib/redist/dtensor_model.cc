#include "redist/dtensor_model.h"

namespace dtplan::redist {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

double dtensor_all_gather_us(double gib, std::int64_t n, const DTensorLink& link) {
  const auto nd = static_cast<double>(n);
  return kDTensorBaseUs + (nd - 1) * link.latency_us +
         1e6 * (gib * (nd - 1) / nd) / link.bw_gbyte_per_s;
}

double dtensor_all_reduce_us(double gib, std::int64_t n, const DTensorLink& link) {
  const auto nd = static_cast<double>(n);
  return kDTensorBaseUs + 2 * (nd - 1) * link.latency_us +
         1e6 * (gib * 2 * (nd - 1) / nd) / link.bw_gbyte_per_s;
}

core::Result<StepPrice> DTensorModel::price(const MeshContext& mesh, const StepQuery& q) const {
  const GroupSet& g = mesh.groups(q.mesh_dims, q.flattened);
  if (g.size == 1) return StepPrice{};
  const DTensorLink& link = g.inter_host ? kDTensorInterHost : kDTensorIntraHost;
  const double b = q.ideal_bytes / kGiB;
  double us = 0;
  switch (q.kind) {
    case StepKind::kAllGather:
      us = dtensor_all_gather_us(b * static_cast<double>(g.size), g.size, link);
      break;
    case StepKind::kReduceScatter:
      us = dtensor_all_gather_us(b, g.size, link);
      break;
    case StepKind::kAllReduce:
      us = dtensor_all_reduce_us(b, g.size, link);
      break;
    case StepKind::kAllToAll:
      us = dtensor_all_gather_us(b, g.size, link) + kDTensorAllToAllPenaltyUs;
      break;
    case StepKind::kLocalChunk:
      break;
    case StepKind::kLocalPartition:
      if (q.divides) {
        DTPLAN_TRY(us, local_traffic_us(profile_, q.bytes));
      }
      break;
  }
  if (q.avg_scale > 1) {
    DTPLAN_TRY(double divide_us, local_traffic_us(profile_, q.bytes));
    us += divide_us;
  }
  return StepPrice{us, cost::Algorithm::kNone, cost::Protocol::kNone};
}

}  // namespace dtplan::redist
