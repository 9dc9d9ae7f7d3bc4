#pragma once
// The state space of the min-cost planner (min_cost_planner.h), compact and allocation-free in the
// search loop. Internal to lib/redist.
//
// A state is 12 bytes: for each of at most 8 mesh dims an 8-bit placement id (into a per-plan
// table: R, the Partial ops of the two ends, S(t) for every tensor dim, the StridedShards of the
// two ends) and a 4-bit position in its tensor dim's shard order, counted among the splits of
// size > 1 only (a size-1 split splits nothing, so its position is not part of the state).
//
// Moves are generated in this fixed order (a move's ordinal is its index in it; the planner's
// third tie-break rule):
//   1 all_to_all S(a)->S(b): tensor dims a ascending, each removable split x of a ascending
//     (the innermost split of size > 1, and any size-1 split), each b != a ascending
//   2 all_gather S->R: a ascending, removable x ascending
//   3 all_reduce P->R: mesh dims ascending
//   4 local_chunk R->S(b): mesh dims ascending, b ascending
//   5 reduce_scatter P->S(b): mesh dims ascending, b ascending
//   6 local_partition R->P(op): mesh dims ascending, ops of the two ends in enum order
//   7 all_gather _S->R: a ascending, removable x ascending
//   8 local_chunk R->_S: mesh dims ascending, StridedShards of the ends in table order
//   9 all_to_all _S(a)->S(b): a ascending, removable x, b != a ascending
//  10 all_to_all S/_S(a)->_S(b): a ascending, removable x, StridedShards of another dim
//  11 reduce_scatter P->_S: mesh dims ascending, StridedShards in table order
//  12 flattened (merging on), per dim set with a flattened mesh, ascending by bit mask:
//     all_reduce, then reduce_scatter to S(b) for b ascending, then all_gather.
// Rules 1-8 are DTensor's get_next_state cases 1-6, 8, 11 in its order.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/hash.h"
#include "core/result.h"
#include "placement/placement.h"
#include "redist/cost_model.h"
#include "redist/flat_map.h"
#include "redist/mesh_context.h"
#include "redist/redist_state.h"
#include "redist/search_move.h"
#include "redist/search_orders.h"
#include "redist/split_chain.h"

namespace dtplan::redist {

class SearchSpace {
 public:
  // Builds the placement table for plans from src to each of `dsts` (their Partial ops and
  // StridedShards all join it); the heuristic's target is dsts.front(). @pre dsts not empty.
  // @post error (kUnsupported) beyond 8 mesh dims or 255 distinct placements.
  core::Status setup(const MeshContext& mesh, std::span<const std::int64_t> shape,
                     core::DType dtype, const RedistState& src, std::span<const RedistState> dsts,
                     bool flattened_moves);

  // The placements a plan from src to dst adds to the table beyond R and S(t): the two ends'
  // Partials and StridedShards, sorted and unique. Targets with equal extras share one table,
  // hence one state graph.
  static std::vector<placement::Placement> table_extras(const RedistState& src,
                                                        const RedistState& dst);

  [[nodiscard]] StateKey encode(const RedistState& state) const;

  // Decodes `key` into the current state, which moves() and query() then use.
  void load(StateKey key);
  // Enumerates the current state's moves in the fixed order above.
  void moves(MoveVisitor& visitor);
  // The price query of a move from the current state.
  [[nodiscard]] StepQuery query(const Move& move) const;

  // The placement class of a placement id (0 R, 1 P, 2 shard-like) and the target's id per dim:
  // what the planner's heuristic reads from a key.
  [[nodiscard]] int placement_class(std::uint8_t pid) const {
    return kind_[pid] < 2 ? kind_[pid] : 2;
  }
  [[nodiscard]] std::uint8_t dst_pid(int m) const { return dst_pid_[static_cast<std::size_t>(m)]; }

  // The mesh dims (bit mask) that hold the target's placement but sit in their tensor dim's order
  // at or after the first position where it differs from the target's order: each of them must
  // be removed from the order (a gather or all_to_all) before the target can be reached, since
  // orders change only at their end. Splits of size 1 do not count.
  [[nodiscard]] std::uint32_t misplaced(StateKey key) const;

  [[nodiscard]] int ndim() const { return ndim_; }
  [[nodiscard]] bool has_partial_ops() const { return !partial_pids_.empty(); }
  [[nodiscard]] bool partial_sum_only() const;
  [[nodiscard]] bool has_strided_targets() const { return !strided_pids_.empty(); }
  [[nodiscard]] std::int64_t item_bytes() const { return item_bytes_; }
  [[nodiscard]] std::int64_t numel() const { return numel_; }
  [[nodiscard]] double global_bytes() const { return global_bytes_; }
  [[nodiscard]] const MeshContext& mesh() const { return *mesh_; }

 private:
  struct ChainKey {
    std::uint64_t pids = 0;
    std::uint32_t dims = 0;
    std::int32_t tensor_dim = 0;
    std::int32_t length = 0;
    bool operator==(const ChainKey&) const = default;
  };
  struct ChainKeyHash {
    std::uint64_t operator()(const ChainKey& k) const {
      return core::mix64(k.pids ^ core::mix64((std::uint64_t{k.dims} << 32) ^
                                              (static_cast<std::uint64_t>(k.tensor_dim) << 8) ^
                                              static_cast<std::uint64_t>(k.length)));
    }
  };

  // The splits (size > 1) of one tensor dim in order: mesh dims and their placement ids.
  struct Chain {
    std::array<std::uint8_t, kMaxSearchDims> dims{};
    std::array<std::uint8_t, kMaxSearchDims> pids{};
    int length = 0;
  };
  // The mesh dims of a flattened mesh (ascending) and its group size.
  struct FlatGroup {
    std::uint32_t dims = 0;
    int flattened = -1;
    std::int64_t size = 1;
    std::array<int, kMaxSearchDims> members{};
    int count = 0;
  };

  std::uint8_t pid_of(const placement::Placement& p) const;
  // The current state's splits of tensor dim t (empty when it has none).
  Chain chain_of(std::int32_t t) const;
  // A move of one mesh dim m from the current state, its next key still the current one.
  Move single_move(StepKind kind, int m, const placement::Placement& src,
                   const placement::Placement& dst) const;
  // Puts mesh dim x with placement id np at the end of tensor dim t's order in mv.next and sets
  // mv's dst_dim and dst_after.
  void append(Move& mv, int x, std::uint8_t np, std::int32_t t);
  // Whether mesh dim m may leave the order of the k-th split tensor dim: it splits that dim and
  // is its innermost split of size > 1, or has size 1.
  bool removable(int k, int m) const;
  // Move families 1, 2, 7, 9, 10: the removable splits held as `from` (kAnyShard: S or _S);
  // with no targets all_gather to R, else all_to_all to each target id of another tensor dim.
  // Return false when the visitor stops the enumeration.
  bool removals(MoveVisitor& v, std::uint8_t from, std::span<const std::uint8_t> targets);
  // Move families 3-6, 8, 11: `kind` from every mesh dim holding `from` to each target id.
  bool to_each(MoveVisitor& v, std::uint8_t from, StepKind kind,
               std::span<const std::uint8_t> targets);
  FlatGroup flat_group(const FlatMatch& match) const;
  // Move family 12, reductions: all_reduce, then reduce_scatter to S(b) for b ascending.
  bool flat_reductions(MoveVisitor& v, const FlatGroup& g);
  // Move family 12, gathers: all_gather of a's innermost splits.
  bool flat_gather(MoveVisitor& v, const FlatGroup& g);
  // Stats of tensor dim t split by `dims` (with placement ids `pids`) in order.
  ChainStats chain(std::int32_t t, const std::uint8_t* dims, const std::uint8_t* pids, int len);
  std::int64_t chain_max(std::int32_t t, const std::uint8_t* dims, const std::uint8_t* pids,
                         int len);
  void set(StateKey& k, int m, std::uint8_t pid, int pos) const;

  const MeshContext* mesh_ = nullptr;
  int ndim_ = 0;
  std::vector<std::int64_t> sizes_;
  std::vector<std::int64_t> shape_;
  std::int64_t item_bytes_ = 1;
  std::int64_t numel_ = 0;
  double global_bytes_ = 0;
  bool flattened_moves_ = false;

  std::vector<placement::Placement> table_;  // placement id -> placement
  std::vector<std::uint8_t> kind_;           // PidKind
  std::vector<std::int32_t> tdim_;           // tensor dim of S/_S ids
  std::vector<std::uint8_t> shard_pids_;     // S(t) for t = 0, 1, ...
  std::vector<std::uint8_t> partial_pids_;
  std::vector<std::uint8_t> strided_pids_;
  std::uint8_t sum_pid_ = 0xff;  // P(sum) if in the table
  // The orders of a key's tensor dims (splits of size > 1), in the order of their first mesh dim.
  void orders_of(StateKey key, Orders& out) const;

  std::array<std::uint8_t, kMaxSearchDims> dst_pid_{};
  Orders dst_orders_;
  FlatMap<ChainKey, ChainStats, ChainKeyHash> chains_{6};

  // The current state.
  StateKey key_;
  std::array<std::uint8_t, kMaxSearchDims> pid_{};
  std::array<std::uint8_t, kMaxSearchDims> pos_{};
  // The orders of its split tensor dims, tensor dims ascending (a tensor dim split only by
  // size-1 mesh dims has length 0).
  Orders current_{};
  std::vector<std::int64_t> ml_;  // longest length per tensor dim
  double ideal_ = 0;
};

}  // namespace dtplan::redist
