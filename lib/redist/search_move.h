#pragma once
// The min-cost planner's states and moves (search_space.h): the state key (8 bits of placement id
// and 4 bits of shard position per mesh dim) with its hash, one move from a state, and the visitor
// SearchSpace::moves() calls. Internal to lib/redist.

#include <cstdint>

#include "core/hash.h"
#include "placement/placement.h"
#include "redist/transform.h"

namespace dtplan::redist {

// The kinds of placement ids; kAnyShard matches S and _S.
enum PidKind : std::uint8_t { kPidR, kPidP, kPidS, kPidSS, kAnyShard = 0xff };

struct StateKey {
  std::uint64_t placements = 0;  // 8 bits per mesh dim
  std::uint32_t positions = 0;   // 4 bits per mesh dim
  bool operator==(const StateKey&) const = default;
};

struct StateKeyHash {
  std::uint64_t operator()(const StateKey& k) const {
    return core::mix64(k.placements ^ core::splitmix64(k.positions));
  }
};

struct Move {
  StepKind kind = StepKind::kAllReduce;
  std::uint32_t mask = 0;  // the mesh dims it acts on
  int flattened = -1;      // a flattened mesh index, or -1
  placement::Placement src;
  placement::Placement dst;
  std::int64_t avg_scale = 1;
  std::int32_t dst_dim = -1;   // the tensor dim gaining splits, or -1
  std::int64_t dst_after = 0;  // its longest length after the move
  StateKey next;
};

class MoveVisitor {
 public:
  virtual ~MoveVisitor() = default;
  // Returns false to stop the enumeration.
  virtual bool visit(const Move& move) = 0;
};

}  // namespace dtplan::redist
