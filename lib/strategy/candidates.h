#pragma once
// Candidates: strategies before validation, de-duplication and costing, and the expansion of
// single-mesh-dim option rows over a mesh (AutoParallel's expand_to_full_mesh_op_strategy, study
// docs/reference/strategy_selection.md §2.1). Rules (ops/*.cc) produce candidates; enumerate_op()
// finishes them (finalize.h).
//
// A single-dim rule lists, for ONE mesh dim, rows of [outputs ; inputs] placements, e.g. mm:
//   R          [R    ; R,    R   ]
//   M          [S(0) ; S(0), R   ]
//   N          [S(1) ; R,    S(1)]
//   K          [P    ; S(1), S(0)]
// and the full strategy list is the Cartesian product over mesh dims: r rows on k mesh dims give
// r^k candidates. Order (the tie-break order): itertools.product order, mesh dim 0 varying
// slowest, rows in their listed order; every rule lists its all-Replicate row first, so the
// per-mesh-dim order is [R, S(0), S(1), ...] as AutoParallel's all-placements generator.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

struct Candidate {
  std::vector<Placements> outputs;            // one list per output
  std::vector<Placements> inputs;             // one list per input slot
  placement::MeshDimMask masked_partial = 0;  // see Strategy::masked_partial
  std::int32_t source = -1;  // follower rules: the producer option this was derived from

  bool operator==(const Candidate&) const = default;
};

// One option of a single-mesh-dim rule: one placement per output and per input slot.
struct DimRow {
  std::vector<placement::Placement> outputs;
  std::vector<placement::Placement> inputs;
  bool masked = false;  // output 0's P(sum) is an embedding's masked partial

  bool operator==(const DimRow&) const = default;
};

// Most candidates one op may expand to (r^k); more is an error rather than a stall.
inline constexpr std::size_t kMaxCandidates = std::size_t{1} << 18;

// The Cartesian product of `rows` over `mesh_ndim` mesh dims in the order above.
// Example: 4 mm rows on 2 mesh dims give 16 candidates; the 6th (index 5 = 1*4 + 1) is
// [S(0),S(0) ; S(0),S(0) ; R,R].
// @pre every row has the same numbers of outputs and inputs.
// @post error (kUnsupported, naming `what`) when rows.size()^mesh_ndim > kMaxCandidates.
core::Result<std::vector<Candidate>> expand_rows(std::span<const DimRow> rows,
                                                 std::size_t mesh_ndim, std::string_view what);

// A candidate whose outputs and inputs all hold `placements` (follower rules).
Candidate uniform_candidate(const Placements& placements, std::size_t outputs, std::size_t inputs,
                            std::int32_t source = -1);

}  // namespace dtplan::strategy
