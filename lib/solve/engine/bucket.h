#pragma once
// Internal to lib/solve: one bucket of bucket elimination, evaluated entry by entry.
//
// A BucketView lays out where each factor of the bucket reads for a separator entry s and a label
// x of the eliminated variable. The entry functions are the only place where bucket arithmetic
// happens; the forward pass and decode() both call them, so decoding reproduces the forward
// values bit for bit.
//
// Scalar: value(s) = min_x Σ_f f(x, s), summed from 0 in the view's sum order (the tables not
// reading the run digit, then those reading it, each group in bucket order); the argmin is the
// lowest x. scalar_message() computes whole runs of the run digit at once: the sum of the tables
// that do not read it is formed once per run, not once per entry.
// Frontier: for each x, start from the point (0 bytes, Σ scalar factors), Minkowski-add the point
// lists of the frontier factors in bucket order, pruning after each step; the entry is the pruned
// union over x.

#include <cstdint>
#include <functional>
#include <vector>

#include "solve/engine/frontier.h"
#include "solve/engine/table.h"

namespace dtplan::solve::detail {

struct BucketView {
  std::int32_t x_dim = 1;
  std::vector<std::int32_t> sep_dims;
  std::int64_t entries = 1;                           // Π sep_dims
  std::vector<const Table*> tables;                   // bucket order
  std::vector<std::int64_t> x_stride;                 // per table
  std::vector<std::vector<std::int64_t>> sep_stride;  // per table, per separator variable
  bool frontier = false;                              // some table is a frontier table
  // The separator position scalar_message walks innermost: the one read by the fewest tables
  // (ties: the last); -1 without separator. sum_order[0, outer_tables) do not read it.
  std::int32_t run_digit = -1;
  std::vector<std::int32_t> sum_order;
  std::int32_t outer_tables = 0;
  std::vector<std::int64_t> absorbed_min, absorbed_max;  // Σ over the frontier tables
};

// Builds the view of `factors` eliminating `x` with separator `separator`.
BucketView make_view(const std::vector<const Factor*>& factors, std::int32_t x, std::int32_t x_dim,
                     const std::vector<std::int32_t>& separator,
                     const std::vector<std::int32_t>& sep_dims, std::size_t rows);

// Walks separator entries in row-major order, keeping each table's read offset.
class Odometer {
 public:
  Odometer(const BucketView& view, std::int64_t entry);
  void next();
  [[nodiscard]] const std::vector<std::int64_t>& offsets() const { return offset_; }

 private:
  const BucketView& view_;
  std::vector<std::int32_t> digit_;
  std::vector<std::int64_t> offset_;
};

// The scalar entry at `offsets`: min over x, with the lowest minimizing x in *argmin.
// `acc` is scratch of x_dim values.
double scalar_entry(const BucketView& view, const std::vector<std::int64_t>& offsets,
                    std::vector<double>& acc, std::int32_t* argmin);

// The runs of a scalar message: separator entries / the run digit's domain (1 without separator).
std::int64_t scalar_runs(const BucketView& view);

// Writes the entries of runs [begin, end) (row-major order of the other separator digits) into
// the message table `out` (row-major over the separator) and, when `argmin` is not null, the
// lowest minimizing x of each entry at the same index; each value and x equal scalar_entry's bit
// for bit. @pre x_dim <= 65536 when argmin is asked for. Stops early, returning false, when
// `late()` (asked every few thousand runs) is true.
bool scalar_message(const BucketView& view, std::int64_t begin, std::int64_t end, double* out,
                    std::uint16_t* argmin, const std::function<bool()>& late);

// Provenance of one frontier entry, recorded only when decoding.
struct FrontierHistory {
  // steps[x][j]: the points after adding the j-th frontier table for label x; tag_a = index in
  // the previous step (0 for the start point), tag_b = point index in the table's entry.
  std::vector<std::vector<PointBuffer>> steps;
  PointBuffer candidates;  // tag_a = x, tag_b = index in the last step
  std::vector<std::int32_t> kept;
};

struct FrontierScratch {
  PointBuffer cur, next, candidates;
  std::vector<std::int32_t> kept;
  std::vector<std::int64_t> amin, amax, zero;
};

// Appends the points of the frontier entry at `offsets` (canonical order) to cost/mem.
// `outside` is the message's outside value at this entry (NaN when unknown: no window filter).
// With `history`, records the provenance instead of reusing scratch buffers.
void frontier_entry(const BucketView& view, const MemoryModel& memory,
                    const std::vector<std::int64_t>& offsets, double outside,
                    FrontierScratch& scratch, std::vector<double>& cost,
                    std::vector<std::int64_t>& mem, FrontierHistory* history);

}  // namespace dtplan::solve::detail
