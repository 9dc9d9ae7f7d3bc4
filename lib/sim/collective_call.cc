#include "sim/collective_call.h"

#include <unordered_map>

#include "core/checked.h"

namespace dtplan::sim {
namespace {

// True for the collectives a ProcessGroup runs: all_gather, reduce_scatter, all_reduce,
// all_to_all, broadcast.
bool supported_collective(collective::Collective collective) {
  using collective::Collective;
  return collective == Collective::kAllGather || collective == Collective::kReduceScatter ||
         collective == Collective::kAllReduce || collective == Collective::kAllToAll ||
         collective == Collective::kBroadcast;
}

}  // namespace

std::string group_string(const Group& group) { return shape_string(group); }

std::string describe(const CollectiveCall& call) {
  std::string out(collective::name(call.collective));
  if (collective::facts(call.collective).reduces) {
    out += "(" + std::string(placement::reduce_op_name(call.op)) + ")";
  }
  if (call.collective == collective::Collective::kBroadcast) {
    out += "(root " + std::to_string(call.root) + ")";
  }
  out += " on [";
  for (std::size_t i = 0; i < call.groups.size(); ++i) {
    if (i > 0) out += ",";
    out += group_string(call.groups[i]);
  }
  return out + "]";
}

core::Status validate_call(const CollectiveCall& call, std::int64_t world_size) {
  auto bad = [&](const std::string& message) {
    return core::Error::bad_input(describe(call) + ": " + message);
  };
  if (!supported_collective(call.collective)) {
    return core::Error::unsupported(describe(call) +
                                    ": the process group runs all_gather, reduce_scatter, "
                                    "all_reduce, all_to_all and broadcast only");
  }
  if (call.groups.empty()) return bad("no groups");
  std::unordered_map<std::int64_t, std::size_t> seen;  // rank -> group index
  for (std::size_t i = 0; i < call.groups.size(); ++i) {
    const Group& group = call.groups[i];
    if (group.empty()) return bad("group " + std::to_string(i) + " is empty");
    for (std::int64_t rank : group) {
      if (rank < 0 || rank >= world_size) {
        return bad("rank " + std::to_string(rank) + " of group " + group_string(group) +
                   " is outside the world of " + std::to_string(world_size) + " ranks");
      }
      auto [it, inserted] = seen.emplace(rank, i);
      if (!inserted) {
        return bad("rank " + std::to_string(rank) + " appears in group " +
                   group_string(call.groups[it->second]) + " and again in group " +
                   group_string(group));
      }
    }
    if (call.collective == collective::Collective::kBroadcast &&
        (call.root < 0 || call.root >= static_cast<std::int64_t>(group.size()))) {
      return bad("root " + std::to_string(call.root) + " is not a group rank of " +
                 group_string(group));
    }
  }
  return {};
}

core::Result<Shape> output_shape(collective::Collective collective, std::int64_t n,
                                 const Shape& shape, std::string_view what) {
  using collective::Collective;
  auto bad = [&](const std::string& message) {
    return core::Error::bad_input(std::string(what) + ": " + message);
  };
  if (collective == Collective::kAllReduce || collective == Collective::kBroadcast) return shape;
  if (shape.empty()) {
    return bad(std::string(collective::name(collective)) + " needs a tensor with a dim 0, got a " +
               "0-d tensor");
  }
  Shape out = shape;
  if (collective == Collective::kAllGather) {
    DTPLAN_TRY(out[0], core::checked_mul(shape[0], n, std::string(what) + ": gathered dim 0"));
    return out;
  }
  if (shape[0] % n != 0) {
    return bad(std::string(collective::name(collective)) + " over " + std::to_string(n) +
               " ranks needs dim 0 divisible by " + std::to_string(n) + ", got shape " +
               shape_string(shape));
  }
  if (collective == Collective::kReduceScatter) out[0] = shape[0] / n;
  return out;
}

}  // namespace dtplan::sim
