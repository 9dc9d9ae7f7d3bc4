#pragma once
// EdgeCoster: the redistribution cost of a graph edge between a producer's output placements and
// a consumer's expected input placements (docs/reference/strategy_selection.md §1.4 `comm`, §3.2),
// priced by redist::Planner (its greedy or min-cost plan, with the flattened-mesh merge, under the
// `nccl` model by default or DTensor's own `dtensor` model) and memoised twice:
//   - per (source spec, target spec) -- the spec holds the global shape, dtype, placements and
//     shard order -- so every edge of the graph moving the same tensor the same way is priced once
//     (specs are interned to small ids, so a memo look-up hashes two integers; matrix() builds
//     each row's and column's spec once, not once per entry);
//   - per edge matrix, keyed by what determines it (the producer's and consumer's enumeration,
//     see GraphStrategies::distinct_index, the output read and the slot), so the identical
//     decoder layers of LLaMA3 share their matrices.
// A pair DTensor cannot redistribute (Shard -> Partial, P(x) -> P(y), x != y) costs +inf
// (solve::kForbidden); equal placements cost 0. An embedding's masked partial redistributes as
// P(sum) (strategy.h).
//
//   EdgeCoster coster(std::move(planner));
//   coster.cost_us({{4096, 4096}, kBF16}, pl("S(0),S(0)"), pl("R,R")).value();  // one flat AG
//
// Not thread-safe (the planner is not); matrix() runs its own threads when given helper planners.
// Costs do not depend on the planner or thread that prices them, nor on pricing a row at once.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "graph/tensor_meta.h"
#include "placement/tensor_spec.h"
#include "redist/planner.h"
#include "redist/redist_plan.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

// A row-major matrix [producer option][consumer strategy] of edge costs, shared between edges.
using EdgeMatrix = std::shared_ptr<const std::vector<double>>;

// The smallest entry of each column of a row-major matrix with `columns` columns (+inf for a
// matrix without rows).
std::vector<double> column_minima(const std::vector<double>& matrix, std::size_t columns);

// What an edge matrix depends on: the producer's and consumer's enumerations, the producer
// output the edge reads, the consumer slot, and which strategies of each end are labels.
struct EdgeMatrixKey {
  std::int32_t producer = 0;  // GraphStrategies::distinct_index of the producer
  std::int32_t output = 0;
  std::int32_t consumer = 0;  // ... of the consumer
  std::int32_t slot = 0;
  std::int32_t producer_labels = 0;  // EdgeCoster::label_set_id of the producer's labels
  std::int32_t consumer_labels = 0;  // ... of the consumer's
  bool operator==(const EdgeMatrixKey&) const = default;
};

// Per consumer input: the cheapest seeded cost into it and the producer option it comes from
// (EdgeCoster::seeded_cheapest).
struct SeededBounds {
  std::vector<double> value;
  std::vector<std::int32_t> from;
};

// The cheapest seeded cost into each column of a row-major matrix with `columns` columns:
// min_j (seeds[j] + matrix[j][o]), the first such j (-1 and +inf where every sum is infinite).
SeededBounds seeded_minima(const std::vector<double>& matrix, std::span<const double> seeds,
                           std::size_t columns);

class EdgeCoster {
 public:
  // `helpers`: more planners on the same mesh and cost model; matrix() prices the pairs it has
  // not seen on them and `planner` at once, one thread each (a pair's cost does not depend on the
  // planner that prices it, so the matrices are the same for every count).
  explicit EdgeCoster(std::unique_ptr<redist::Planner> planner,
                      std::vector<std::unique_ptr<redist::Planner>> helpers = {});

  // The spec of a tensor of `meta` laid out as `placements` on the planner's mesh.
  // @post error (kBadInput) when the placements do not describe the tensor on the mesh.
  [[nodiscard]] core::Result<placement::TensorSpec> spec(const graph::TensorMeta& meta,
                                                         const Placements& placements) const;

  // The cost of moving a tensor of `meta` from `src` to `dst` placements: 0 when equal, +inf
  // when DTensor cannot, else the planned total (µs). Errors other than "cannot" propagate.
  core::Result<double> cost_us(const graph::TensorMeta& meta, const Placements& src,
                               const Placements& dst);

  // The planned redistribution itself (merged on flattened meshes; warnings go to the planner's
  // sink). @post error (kUnsupported) for the pairs cost_us prices +inf.
  core::Result<std::shared_ptr<const redist::RedistPlan>> plan(const graph::TensorMeta& meta,
                                                               const Placements& src,
                                                               const Placements& dst);

  // The matrix [j][o] = cost_us(meta, producer_options[j], consumer_inputs[o]), memoised by `key`.
  core::Result<EdgeMatrix> matrix(const EdgeMatrixKey& key, const graph::TensorMeta& meta,
                                  std::span<const Placements> producer_options,
                                  std::span<const Placements> consumer_inputs);

  // For each consumer input o, a lower bound on min_j cost_us(meta, producer_options[j],
  // consumer_inputs[o]) (0 where some option equals it): one min-cost search seeded at every
  // distinct producer option (redist::Planner::cost_lower_bounds) instead of pricing each pair;
  // the column minima of matrix() where that search cannot run. Memoised by `key`; costs no
  // pair (pairs_priced() counts none of it).
  core::Result<EdgeMatrix> cheapest(const EdgeMatrixKey& key, const graph::TensorMeta& meta,
                                    std::span<const Placements> producer_options,
                                    std::span<const Placements> consumer_inputs);

  // For each consumer input o: `value[o]`, a lower bound on min_j (seeds[j] + cost_us(meta,
  // producer_options[j], consumer_inputs[o])), and `from[o]`, the j it comes from (+inf and -1
  // where no option with a finite seed reaches the input). One min-cost search seeded at each
  // distinct option at its seed (redist::Planner::cost_lower_bounds); the exact matrix where
  // that search cannot run. What the pruning's plan of a component follows back from a
  // consumer to its producers. Memoised by `key` and the seeds; costs no pair.
  core::Result<std::shared_ptr<const SeededBounds>> seeded_cheapest(
      const EdgeMatrixKey& key, const graph::TensorMeta& meta,
      std::span<const Placements> producer_options, std::span<const double> seeds,
      std::span<const Placements> consumer_inputs);

  // seeded_cheapest()'s memoised result for `key` and `seeds`, or null.
  [[nodiscard]] std::shared_ptr<const SeededBounds> memoised_seeded(
      const EdgeMatrixKey& key, std::span<const double> seeds) const {
    const auto it = seeded_.find(SeededKey{key, std::vector<double>(seeds.begin(), seeds.end())});
    return it != seeded_.end() ? it->second : nullptr;
  }

  // The matrix memoised by `key`, or null: lets a caller skip listing options already priced.
  [[nodiscard]] EdgeMatrix memoised(const EdgeMatrixKey& key) const {
    const auto it = matrices_.find(key);
    return it != matrices_.end() ? it->second : nullptr;
  }
  // The same for cheapest().
  [[nodiscard]] EdgeMatrix memoised_cheapest(const EdgeMatrixKey& key) const {
    const auto it = cheapest_.find(key);
    return it != cheapest_.end() ? it->second : nullptr;
  }

  // A small id for a list of strategy indices (a node's labels, selection_problem.h
  // LabelScope::kPinned): 0 for the empty list (every strategy), equal lists equal ids.
  std::int32_t label_set_id(const std::vector<std::int32_t>& strategies);

  [[nodiscard]] redist::Planner& planner() { return *planner_; }
  [[nodiscard]] std::span<const std::int64_t> mesh_sizes() const { return sizes_; }
  // Distinct spec pairs priced, and matrices built (not served from the memo).
  [[nodiscard]] std::size_t pairs_priced() const { return costs_.size(); }
  [[nodiscard]] std::size_t matrices_built() const { return matrices_.size(); }

 private:
  struct KeyHash {
    std::size_t operator()(const EdgeMatrixKey& k) const;
  };

  // The id of `spec` (interned on first sight); spec_id builds the spec of `placements` first.
  std::int32_t intern(placement::TensorSpec spec);
  core::Result<std::int32_t> spec_id(const graph::TensorMeta& meta, const Placements& placements);
  // 0 for equal placements, +inf where DTensor cannot redistribute, else pair_cost of the two
  // specs (whose construction errors surface only here).
  core::Result<double> cost_between(const Placements& src, const Placements& dst,
                                    const core::Result<std::int32_t>& from,
                                    const core::Result<std::int32_t>& to);
  // The cost between two interned specs (memoised).
  core::Result<double> pair_cost(std::int32_t src, std::int32_t dst);
  // Prices the pairs of `keys` (src id << 32 | dst id, distinct, not memoised, listed row by
  // row) a row at a time (Planner::costs_uncached, which shares a row's min-cost searches), the
  // rows spread over every planner at once, memoises the costs and returns them, one per key
  // (errors other than "cannot" are not memoised: pair_cost plans such a pair again).
  std::vector<core::Result<double>> price_in_parallel(const std::vector<std::uint64_t>& keys);

  std::unique_ptr<redist::Planner> planner_;
  std::vector<std::unique_ptr<redist::Planner>> helpers_;
  std::vector<std::int64_t> sizes_;
  redist::PlanOptions options_;
  std::unordered_map<placement::TensorSpec, std::int32_t> spec_ids_;
  std::vector<placement::TensorSpec> specs_;         // by id
  std::unordered_map<std::uint64_t, double> costs_;  // (src id << 32 | dst id) -> cost
  std::unordered_map<EdgeMatrixKey, EdgeMatrix, KeyHash> matrices_;
  std::unordered_map<EdgeMatrixKey, EdgeMatrix, KeyHash> cheapest_;  // cheapest()'s
  struct SeededKey {
    EdgeMatrixKey key;
    std::vector<double> seeds;
    bool operator==(const SeededKey&) const = default;
  };
  struct SeededKeyHash {
    std::size_t operator()(const SeededKey& k) const;
  };
  std::unordered_map<SeededKey, std::shared_ptr<const SeededBounds>, SeededKeyHash> seeded_;
  std::map<std::vector<std::int32_t>, std::int32_t> label_sets_{{{}, 0}};
};

// Whether `error` says DTensor cannot redistribute (the planner's kUnsupported).
bool is_forbidden_pair(const core::Error& error);

}  // namespace dtplan::strategy
