#pragma once
// Planner: plans, prices and caches redistributions on one mesh with one cost model.
//
//   auto ctx = MeshContext::make(mesh, 8, "h100-dgx").value();
//   WarningSink sink;
//   Planner planner(std::move(ctx), make_cost_model(CostModelKind::kNccl, profile), &sink);
//   auto plan = planner.plan(src_spec, dst_spec, {PlannerKind::kAuto, true}).value();
//
// Pipeline: check the request; pick the planner (auto follows DTensor,
// docs/reference/placements.md §3.2: min-cost when either spec has a non-default shard order or a
// StridedShard, else greedy); plan; with merging on, run the merge pass on a greedy plan (the
// min-cost search already weighs every merge as a flattened move, so its plan is only scanned for
// the warnings); price every step from the state before it (StepPricer); check that the steps reach
// the target. Warnings: the merge pass's (DTensor's), merge_costs_more where the greedy plan's
// merge pass merged at a loss (DTensor merges unconditionally, so the greedy planner does too), and
// divergent_replicas where a reduction may leave replicas that differ bitwise
// (replica_divergence.h), merged or not.
//
// Which plan is cheaper, precisely: for the same model, merge flag and specs, the min-cost plan's
// total (integer ps) is <= the greedy plan's total after its merge pass and <= the greedy plan's
// total without it. By construction: every greedy step is a search move at the same price (greedy
// plans remove only innermost splits and append new ones, see greedy_planner.h), and every merged
// step is a flattened search move from the same state (the steps that move nothing, which the
// merge pass runs after it, are search moves from their new states at the same price). The
// min-cost plan with merging is also <= its plan without: the search only gains moves.
//
// Plans are cached by (mesh fingerprint with its flattened meshes, src spec, dst spec, planner,
// model, merge flag). Warnings of a plan go to the sink each time the plan is returned; the sink
// drops repeats of a (mesh, dims, reason). Not thread-safe.

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "core/result.h"
#include "placement/tensor_spec.h"
#include "redist/cost_model.h"
#include "redist/merge_pass.h"
#include "redist/mesh_context.h"
#include "redist/min_cost_planner.h"
#include "redist/redist_plan.h"
#include "redist/step_pricer.h"
#include "redist/warnings.h"

namespace dtplan::redist {

struct PlanOptions {
  PlannerKind planner = PlannerKind::kAuto;
  bool merge = true;  // the flattened-mesh merge pass (--no-merge: false)
  std::size_t max_states = std::size_t{1} << 19;  // the min-cost search's limit
};

class Planner {
 public:
  // @pre model != nullptr. `sink` may be null (warnings stay in the plans only).
  Planner(MeshContext mesh, std::unique_ptr<CostModel> model, WarningSink* sink = nullptr);
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  // The plan from src to dst, from the cache when possible.
  // @post errors: kBadInput when the specs do not describe one tensor on this mesh; kUnsupported
  //   (naming the mesh dim and both placements) for shard -> Partial and P(x) -> P(y), and for
  //   greedy on a non-default shard order or StridedShard, or a search beyond its limits.
  core::Result<std::shared_ptr<const RedistPlan>> plan(const placement::TensorSpec& src,
                                                       const placement::TensorSpec& dst,
                                                       const PlanOptions& options);
  // The same without the cache (it still memoises step prices) and without the sink.
  core::Result<RedistPlan> plan_uncached(const placement::TensorSpec& src,
                                         const placement::TensorSpec& dst,
                                         const PlanOptions& options);
  // plan_uncached(...)->total_cost_us without building the plan's records (steps, trace, mesh
  // description): what edge pricing needs, for 683k pairs on 8x8x8. A min-cost route's total is
  // the search's own (plan_uncached re-prices its steps and checks the two agree, which the tests
  // exercise), no warn-only merge pass runs (it changes no step) and merges make no warnings; so
  // the errors are plan_uncached's except for those two internal consistency checks.
  core::Result<double> cost_uncached(const placement::TensorSpec& src,
                                     const placement::TensorSpec& dst, const PlanOptions& options);

  // cost_uncached(src, *dsts[i], options) for every i, to the bit, errors included: the targets
  // that take the min-cost search share one search per search graph (MinCostPlanner::plan_many),
  // the greedy ones are routed one by one. What a matrix row of edge pricing needs.
  std::vector<core::Result<double>> costs_uncached(
      const placement::TensorSpec& src, std::span<const placement::TensorSpec* const> dsts,
      const PlanOptions& options);

  // For each of `dsts`, a lower bound (µs) on cost_uncached(src, dst, options) over every src of
  // `srcs`, the min-cost planner's or the greedy one's (MinCostPlanner::lower_bounds; a pair
  // DTensor cannot redistribute costs +inf there, so any value bounds it).
  // With `seed_us` (one per source, each finite and >= 0), the bound is on min over srcs i of
  // seed_us[i] + cost (seeds rounded to ps), and `origins` (when given) gets per dst the i it
  // comes from, -1 where no source reaches it (MinCostPlanner::lower_bounds).
  // @pre every spec is of one tensor. @post errors: a spec that does not fit the mesh
  //   (kBadInput), a search beyond the min-cost planner's limits (kUnsupported).
  core::Result<std::vector<double>> cost_lower_bounds(
      std::span<const placement::TensorSpec* const> srcs,
      std::span<const placement::TensorSpec* const> dsts, const PlanOptions& options,
      std::span<const double> seed_us = {}, std::vector<std::int32_t>* origins = nullptr);

  [[nodiscard]] const MeshContext& mesh() const { return mesh_; }
  [[nodiscard]] const CostModel& model() const { return *model_; }
  [[nodiscard]] std::uint64_t cache_hits() const { return hits_; }
  [[nodiscard]] std::uint64_t cache_misses() const { return misses_; }
  // States the last min-cost search expanded (0 after a greedy plan).
  [[nodiscard]] std::size_t last_settled() const { return last_settled_; }

 private:
  struct Key {
    std::uint64_t mesh_model;  // hash of the mesh fingerprint and the model name
    placement::TensorSpec src;
    placement::TensorSpec dst;
    PlannerKind planner;
    bool merge;
    std::size_t max_states;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  // The steps of a plan (searched or greedy, then merged) and its end points.
  struct Route {
    PlannerKind kind = PlannerKind::kGreedy;
    RedistState start;
    RedistState target;
    std::vector<Transform> steps;
    std::vector<Warning> warnings;
    std::vector<MergedGroup> merged;  // the merge pass's merged steps (greedy)
    std::int64_t searched_ps = -1;    // the min-cost search's own total (-1: greedy)
  };
  // With `cost_only`, no warnings: no merge pass that would only warn (the min-cost planner's),
  // and the greedy plan's merges made quietly.
  core::Result<Route> route(const placement::TensorSpec& src, const placement::TensorSpec& dst,
                            const PlanOptions& options, bool cost_only = false);
  // Prices the route's steps in order (each into `record` unless null) and checks that they end
  // at the target for the searched total: the total, in picoseconds.
  core::Result<std::int64_t> price_route(const Route& r, const placement::TensorSpec& src,
                                         std::vector<PlanStep>* record);
  // plan_endpoint(spec, mesh sizes), memoised: decoding a _StridedShard of an uneven tensor
  // walks every mesh coordinate, and edge pricing asks for each spec once per pair.
  RedistState endpoint(const placement::TensorSpec& spec);

  // A kMergeCostsMore warning for each merged step of `r` priced above the steps it replaced
  // (each priced from the state before the merged step, in order).
  core::Result<std::vector<Warning>> costly_merges(const Route& r, const RedistPlan& plan);

  MeshContext mesh_;
  std::unique_ptr<CostModel> model_;
  WarningSink* sink_;
  StepPricer pricer_;
  MinCostPlanner search_;
  MeshDescription description_;
  // One planner serves one (mesh, flattened meshes, model): the key's mesh_model is the same for
  // every entry of an instance.
  std::uint64_t mesh_model_ = 0;
  std::unordered_map<Key, std::shared_ptr<const RedistPlan>, KeyHash> cache_;
  std::unordered_map<placement::TensorSpec, RedistState> endpoints_;  // strided specs only
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::size_t last_settled_ = 0;
};

// Whether DTensor's rule picks the graph (min-cost) planner: a non-default shard order or a
// StridedShard in either spec.
bool needs_min_cost(const placement::TensorSpec& src, const placement::TensorSpec& dst);

// The planner that runs for a request: `requested`, or for kAuto DTensor's rule above.
PlannerKind resolved_planner(PlannerKind requested, const placement::TensorSpec& src,
                             const placement::TensorSpec& dst);

// The mesh part of a plan.
MeshDescription describe_mesh(const MeshContext& mesh);

}  // namespace dtplan::redist
