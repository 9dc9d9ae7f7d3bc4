#include "placement/placement.h"

#include "core/hash.h"

namespace dtplan::placement {

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAvg:
      return "avg";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
  }
  return "sum";
}

std::string to_string(const Placement& p) {
  switch (p.kind()) {
    case PlacementKind::kReplicate:
      return "R";
    case PlacementKind::kPartial:
      return "P(" + std::string(reduce_op_name(p.reduce_op())) + ")";
    case PlacementKind::kShard:
      return "S(" + std::to_string(p.dim()) + ")";
    case PlacementKind::kStridedShard:
      return "_S(" + std::to_string(p.dim()) + "," + std::to_string(p.split_factor()) + ")";
  }
  return "R";
}

std::string to_long_string(const Placement& p) {
  switch (p.kind()) {
    case PlacementKind::kReplicate:
      return "Replicate()";
    case PlacementKind::kPartial:
      return "Partial(" + std::string(reduce_op_name(p.reduce_op())) + ")";
    case PlacementKind::kShard:
      return "Shard(dim=" + std::to_string(p.dim()) + ")";
    case PlacementKind::kStridedShard:
      return "_StridedShard(dim=" + std::to_string(p.dim()) +
             ", sf=" + std::to_string(p.split_factor()) + ")";
  }
  return "Replicate()";
}

std::size_t hash_value(const Placement& p) {
  std::size_t h = core::hash_combine(0, static_cast<std::uint64_t>(p.kind()));
  h = core::hash_combine(h, static_cast<std::uint64_t>(p.reduce_op()));
  h = core::hash_combine(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.dim())));
  return core::hash_combine(h, static_cast<std::uint64_t>(p.split_factor()));
}

}  // namespace dtplan::placement
