#pragma once
// Internal to lib/solve: min-sum bucket elimination (variable elimination) with exact decoding.
//
// Each variable of `order` in turn collects the factors whose earliest-eliminated variable it is
// (its bucket), and replaces them by one message over the other variables of the bucket (the
// separator): m(s) = min_x Σ_f f(x, s) -- a min-plus product. On frontier tables (memory rows) the
// min becomes a Pareto union and the sum a Minkowski sum of point lists. No argmin tables are
// stored: decode() recomputes, for the separator labels actually chosen, the one entry it needs
// with the same arithmetic in the same order, so the choice is bit-identical to the forward pass.
// Ties: the lowest label x attaining the minimum (scalar), the first point in canonical order
// (frontier).
//
// Mini-bucket mode (mini_bucket_entries > 0, scalar only) splits a bucket whose table would exceed
// that many entries into mini-buckets eliminated separately: the result is a lower bound (the
// branch-and-bound heuristic), not decodable.
//
// Example: factors f(0) = {1, 2}, g(0, 1) = {0, 5, 5, 0}, h(1) = {3, 0}; order {0, 1}.
//   bucket 0 = {f, g}: m(1) = min_x f(x) + g(x, 1) = {min(1+0, 2+5), min(1+5, 2+0)} = {1, 2}
//   bucket 1 = {h, m}: constant min_y h(y) + m(y) = min(3+1, 0+2) = 2; decode y = 1, x = 1.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/result.h"
#include "solve/engine/table.h"

namespace dtplan::solve::detail {

using Clock = std::chrono::steady_clock;

struct BucketView;  // bucket.h

struct Limits {
  Clock::time_point deadline = Clock::time_point::max();
  std::int64_t max_points = std::int64_t{1} << 26;  // frontier points in one message
  int threads = 1;
};

enum class RunStatus : std::uint8_t { kComplete, kTimeLimit, kPointLimit };

// What a run keeps for decode(): every message (outside_tables() needs them), or, for scalar
// buckets, only each entry's minimizing label (2 bytes instead of 8), freeing every message a
// scalar bucket consumed as soon as that bucket is done: the solver's footprint is then the live
// messages, not all of them. Frontier buckets keep their inputs either way.
enum class Retain : std::uint8_t { kMessages, kArgmins };

// Per factor of an elimination, a table over its scope (empty when unknown): the least
// Lagrangian cost everything outside the factor adds (see outside_tables()).
using Outside = std::vector<std::vector<double>>;

struct EliminationStats {
  std::int64_t messages = 0;
  std::int64_t max_message_entries = 0;
  std::int64_t max_message_points = 0;  // frontier points in the largest frontier message
  bool operator==(const EliminationStats&) const = default;
};

class Elimination {
 public:
  // Eliminates `order` (distinct variables) from `factors`. @pre scopes within domains.
  // `outside` (indexed like factors(), messages included) enables the window filter of frontier
  // messages; it must come from outside_tables() of a scalar run with the same scopes and order.
  static Elimination run(std::vector<std::int32_t> domains, std::vector<Factor> factors,
                         const std::vector<std::int32_t>& order, const MemoryModel& memory,
                         const Limits& limits, std::int64_t mini_bucket_entries = 0,
                         std::shared_ptr<const Outside> outside = nullptr,
                         Retain retain = Retain::kMessages);

  [[nodiscard]] RunStatus status() const { return status_; }
  [[nodiscard]] const EliminationStats& stats() const { return stats_; }
  // Inputs first (same indices as given), then the messages (with Retain::kArgmins, the table
  // of a message a scalar bucket consumed is null).
  [[nodiscard]] const std::vector<Factor>& factors() const { return factors_; }
  // Factors no bucket consumed: scopes hold only variables outside `order`.
  [[nodiscard]] const std::vector<std::int32_t>& remaining() const { return remaining_; }
  // Σ over the factors not yet consumed of their cheapest entry: a lower bound on the optimum
  // (constrained or not), valid after a complete or an interrupted run.
  [[nodiscard]] double relaxation_bound() const;

  // Fills `assignment` for the eliminated variables, given labels for the others and, for every
  // frontier factor in remaining(), the chosen point index in its entry (`targets`, indexed by
  // factor, -1 for none). Sets targets of the frontier inputs whose points were used.
  // @pre status() == kComplete and not mini-bucket mode.
  core::Status decode(std::vector<std::int32_t>& assignment,
                      std::vector<std::int64_t>& targets) const;

  // @pre the run retained its messages (Retain::kMessages).
  // The backward (min-marginal) pass of a complete scalar run: for every factor f consumed by a
  // bucket, out[f](s) = min over the bucket's other variables of out[message] + Σ the bucket's
  // other factors, i.e. the least cost of everything outside f given f's labels. `init` holds the
  // tables of the remaining factors (empty = 0). nullopt once `deadline` passes (read every
  // 1,024 bucket entries: the pass is single-threaded and can take as long as the run).
  [[nodiscard]] std::optional<Outside> outside_tables(
      Outside init, Clock::time_point deadline = Clock::time_point::max()) const;

 private:
  struct Bucket {
    std::int32_t var = 0;
    std::vector<std::int32_t> factor_ids;
    std::vector<std::int32_t> separator;  // ascending variable ids
    std::int32_t message = -1;
    std::vector<std::uint16_t> argmin;  // Retain::kArgmins, scalar: per message entry
  };
  struct View;  // per-bucket strides, built on demand

  [[nodiscard]] View view(const Bucket& bucket) const;
  [[nodiscard]] bool keeps_argmins(const BucketView& view) const;
  [[nodiscard]] const std::vector<double>* outside_for(std::size_t id) const;
  bool eliminate(std::size_t index);

  std::vector<std::int32_t> domains_;
  std::vector<Factor> factors_;
  std::vector<char> consumed_;
  std::vector<Bucket> buckets_;
  std::vector<std::int32_t> remaining_;
  std::size_t inputs_ = 0;  // factors_[inputs_...] are messages
  Retain retain_ = Retain::kMessages;
  bool mini_bucket_ = false;
  MemoryModel memory_;
  std::shared_ptr<const Outside> outside_;
  Limits limits_;
  RunStatus status_ = RunStatus::kComplete;
  EliminationStats stats_;
};

// The combination of constant factors (empty scopes) after a complete elimination: the cheapest
// point within every memory row's bounds. `targets` (indexed by factor) receives the chosen point
// of each frontier constant. cost_us is +inf when nothing is feasible.
struct RootChoice {
  double cost_us = 0;
  std::vector<std::int64_t> memory_bytes;
};
RootChoice choose_root(const std::vector<Factor>& factors,
                       const std::vector<std::int32_t>& constants, const MemoryModel& memory,
                       std::vector<std::int64_t>& targets);

}  // namespace dtplan::solve::detail
