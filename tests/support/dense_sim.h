#pragma once
// A numeric simulator for the strategy tests: dense tensors, their per-rank pieces under a
// placement list (Partial values split into random contributions that reduce to the tensor), and
// the reassembly of per-rank results. A strategy is correct when running the op on every rank's
// pieces and reassembling the outputs under the strategy's output placements gives the op's
// result on the whole tensors.

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "graph/tensor_meta.h"
#include "placement/index_set.h"
#include "strategy/strategy.h"

namespace dtplan::testing {

struct Dense {
  graph::Shape shape;
  std::vector<double> v;  // row-major

  [[nodiscard]] std::int64_t numel() const;
  [[nodiscard]] std::vector<std::int64_t> strides() const;
};

Dense zeros(graph::Shape shape);
// Uniform values in [lo, hi).
Dense random_dense(graph::Shape shape, std::mt19937_64& rng, double lo = -1, double hi = 1);

// The multi-index of flat position `flat` in `shape`.
std::vector<std::int64_t> unravel(std::int64_t flat, const graph::Shape& shape);
// The flat position of a multi-index; dims of size 1 in `shape` broadcast (index taken as 0), and
// leading missing dims are ignored (right alignment).
std::int64_t ravel_broadcast(const std::vector<std::int64_t>& index, const graph::Shape& shape);

// One rank's view of a tensor: its local piece and which global indices it holds per dim.
struct Piece {
  Dense local;
  std::vector<placement::IndexSet> owned;
};

// Every rank's piece (ranks in row-major coordinate order) of `global` laid out by `placements`.
// Partial mesh dims split values into random contributions that reduce (sum, avg, max, min) to
// `global`.
std::vector<Piece> distribute(const Dense& global, const strategy::Placements& placements,
                              const std::vector<std::int64_t>& mesh, std::mt19937_64& rng);

// Every rank's local shape of a tensor laid out by `placements` (Partial counts as Replicate).
std::vector<graph::Shape> rank_shapes(const graph::Shape& shape,
                                      const strategy::Placements& placements,
                                      const std::vector<std::int64_t>& mesh);

// The global tensor of shape `shape` from every rank's local result laid out by `placements`
// (Partial dims reduced, replicas compared). nullopt, with `why` set, when a rank's piece has the
// wrong shape, replicas disagree or an element is not covered.
std::optional<Dense> assemble(const std::vector<Dense>& locals, const graph::Shape& shape,
                              const strategy::Placements& placements,
                              const std::vector<std::int64_t>& mesh, std::string& why);

// Whether two tensors have the same shape and values within a relative tolerance.
bool close(const Dense& a, const Dense& b, double tolerance = 1e-9);

}  // namespace dtplan::testing
