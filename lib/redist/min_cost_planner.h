#pragma once
// The exact min-cost planner: a cheapest path from the source to the target state, where states
// are (placements, shard order) and edges are the moves of DTensor's graph planner
// (docs/reference/placements.md §3.4), extended (search_space.h lists them all):
//   DTensor's: S(a)->S(b) all_to_all and S->R all_gather of a tensor dim's innermost split,
//     P->R all_reduce, R->S(b) chunk, P->S(b) reduce_scatter, R->P(op) partition, _S->R
//     all_gather, R->_S chunk;
//   the ones PyTorch leaves out although they are valid single collectives: _S->S, S->_S and
//     _S->_S all_to_all (to another tensor dim) and P->_S reduce_scatter; P(x)->P(y) stays out
//     (not a valid redistribution);
//   R->P(op) also into states that mix Partial ops: the new Partial dim holds equal values
//     along its groups, so every reduction order gives the same value (DTensor's greedy planner
//     reaches such states; its graph planner skips them);
//   a size-1 mesh dim's split is removed from any position (it splits nothing);
//   with merging on, one collective on a user-created flattened mesh over several dims, exactly
//     where the merge pass (merge_pass.h) would merge the equivalent sequential steps.
// Edge weights are StepPricer prices in integer picoseconds. The search is A* with an admissible,
// consistent heuristic: every mesh dim whose placement differs from the target's needs a move
// that takes it away from its current class (R, P, shard-like), and every dim that holds its
// target Shard but sits at or after the first difference of its tensor dim's order needs a
// removal and a move back; each such move is priced at the smallest byte count any step can have
// (a flattened move's cost shared among its dims). So the plan is a cheapest one. Ties, as
// written rules:
//   1. the least total cost (integer ps);
//   2. then the fewest steps;
//   3. then the lexicographically smallest sequence of move ordinals, where a move's ordinal is
//      its position in the fixed generation order at its state (search_space.h).
// The result does not depend on the heuristic: every optimal path is recorded and the
// lexicographic one extracted afterwards (tests compare A* with plain Dijkstra).
//
// Limits: meshes of at most 8 dims, 255 distinct placements (tensor rank ~240), and
// max_states search states; beyond them the planner returns kUnsupported (use greedy).
//
// Triangle inequality: a plan may use the Partial ops and StridedShard placements of its two
// ends, so cost(A,C) <= cost(A,B) + cost(B,C) holds whenever B's Partial ops and StridedShards
// appear in A or C (the concatenated plans are then a path of the A -> C search).

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "redist/redist_state.h"
#include "redist/step_pricer.h"
#include "redist/transform.h"

namespace dtplan::redist {

enum class Heuristic : std::uint8_t { kAStar, kNone };

struct SearchOptions {
  bool flattened_moves = true;  // merging on: moves on user-created flattened meshes
  Heuristic heuristic = Heuristic::kAStar;
  std::size_t max_states = std::size_t{1} << 19;
};

struct SearchResult {
  std::vector<Transform> steps;
  std::int64_t cost_ps = 0;
  std::size_t settled = 0;  // states expanded
  std::size_t reached = 0;  // states generated
};

class MinCostPlanner {
 public:
  // Keeps `pricer` (and through it the mesh context and model); scratch memory is reused across
  // plans. Not thread-safe.
  explicit MinCostPlanner(StepPricer& pricer);
  ~MinCostPlanner();
  MinCostPlanner(const MinCostPlanner&) = delete;
  MinCostPlanner& operator=(const MinCostPlanner&) = delete;

  // A cheapest plan from `src` to `dst` (equivalent states; see redist_state.h).
  // @pre src and dst are valid states of a tensor of `shape` on the pricer's mesh, and every
  //   mesh dim's pair is supported (no shard -> Partial, no P(x) -> P(y)): Planner checks.
  // @post error (kUnsupported) beyond the limits above.
  core::Result<SearchResult> plan(std::span<const std::int64_t> shape, core::DType dtype,
                                  const RedistState& src, const RedistState& dst,
                                  const SearchOptions& options);

  // The cheapest plans' costs from `src` to each of `dsts`: element i is exactly
  // plan(shape, dtype, src, dsts[i], options)'s cost_ps, or its error. One Dijkstra search
  // serves every target it settles (a matrix row's targets lie close together, so it expands far
  // fewer states than one A* per target); a target it leaves (unreachable, past max_states, a
  // pricing error) gets its own plan().
  // @pre as plan() for each target, and every target has the same
  //   SearchSpace::table_extras(src, dst): the search's graph is then each target's own (another
  //   target's Partials or StridedShards could otherwise open a cheaper path).
  std::vector<core::Result<std::int64_t>> plan_many(std::span<const std::int64_t> shape,
                                                    core::DType dtype, const RedistState& src,
                                                    std::span<const RedistState> dsts,
                                                    const SearchOptions& options);

  // For each of `dsts`, a lower bound on the cheapest plan's cost from any of `srcs` (integer
  // ps; 0 for a target no source reaches). One Dijkstra search seeded at every source, over the
  // graph of every end's Partials and StridedShards: that graph holds each pair's own (more
  // table entries only add moves, priced alike), so its distances are at most the pairs' costs,
  // and the min-cost plan is at most the greedy one's (planner.h). What pruning by bound needs
  // to rule out a consumer's strategies without pricing each pair.
  // With `seed_ps` (one per source), source i starts at seed_ps[i], so a target's bound is on
  // min_i (seed_ps[i] + cost(i, target)); `origins` (when given) gets per target the i its bound
  // comes from (-1 where none reaches it): what the pruning's plan of a component follows.
  // @pre as plan() for each pair, except that the pairs may be ones DTensor cannot redistribute;
  //   seed_ps empty or one per source, each >= 0.
  // @post error (kUnsupported) beyond the limits of the header, or a pricing error.
  core::Result<std::vector<std::int64_t>> lower_bounds(
      std::span<const std::int64_t> shape, core::DType dtype, std::span<const RedistState> srcs,
      std::span<const RedistState> dsts, const SearchOptions& options,
      std::span<const std::int64_t> seed_ps = {}, std::vector<std::int32_t>* origins = nullptr);

  struct Impl;  // the search's state and scratch (min_cost_planner.cc)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace dtplan::redist
