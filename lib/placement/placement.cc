#include "placement/placement.h"

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

std::size_t hash_combine(std::size_t seed, std::uint64_t value) {
  auto s = static_cast<std::uint64_t>(seed);
  std::uint64_t x = s ^ (value + 0x9e3779b97f4a7c15ULL + (s << 6) + (s >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::size_t>(x ^ (x >> 31));
}

std::size_t hash_value(const Placement& p) {
  std::size_t h = hash_combine(0, static_cast<std::uint64_t>(p.kind()));
  h = hash_combine(h, static_cast<std::uint64_t>(p.reduce_op()));
  h = hash_combine(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.dim())));
  return hash_combine(h, static_cast<std::uint64_t>(p.split_factor()));
}

}  // namespace dtplan::placement
