#include "redist/planner.h"

#include <functional>

#include "core/hash.h"
#include "core/strings.h"
#include "core/units.h"
#include "layout/layout_text.h"
#include "redist/greedy_planner.h"
#include "redist/merge_pass.h"
#include "redist/replica_divergence.h"
#include "redist/search_space.h"

namespace dtplan::redist {

using placement::Placement;
using placement::TensorSpec;

namespace {

// The request checks of Planner::plan.
core::Status check_request(const MeshContext& mesh, const TensorSpec& src, const TensorSpec& dst) {
  const std::span<const std::int64_t> sizes = mesh.sizes();
  if (src.shape() != dst.shape() || src.dtype() != dst.dtype()) {
    return core::Error::bad_input("redistribute: src " + to_string(src) + " and dst " +
                                  to_string(dst) + " are different tensors");
  }
  if (auto s = placement::check_mesh_args(src, sizes); !s.ok()) {
    return s.error().with_context("src");
  }
  if (auto s = placement::check_mesh_args(dst, sizes); !s.ok()) {
    return s.error().with_context("dst");
  }
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    const Placement& a = src.placement(m);
    const Placement& b = dst.placement(m);
    if (a == b || !b.is_partial() || a.is_replicate()) continue;
    return core::Error::unsupported(
        "mesh dim " + mesh.dim_label(static_cast<int>(m)) + ": redistribute from " +
        placement::to_long_string(a) + " to " + placement::to_long_string(b) +
        " is not supported (" +
        (a.is_partial() ? "one partial type to another" : "Shard to Partial") + ")");
  }
  return {};
}

}  // namespace

bool needs_min_cost(const TensorSpec& src, const TensorSpec& dst) {
  return !src.shard_order().is_default() || !dst.shard_order().is_default() ||
         src.has_strided_shard() || dst.has_strided_shard();
}

PlannerKind resolved_planner(PlannerKind requested, const TensorSpec& src, const TensorSpec& dst) {
  if (requested != PlannerKind::kAuto) return requested;
  return needs_min_cost(src, dst) ? PlannerKind::kMinCost : PlannerKind::kGreedy;
}

MeshDescription describe_mesh(const MeshContext& mesh) {
  MeshDescription d;
  const mesh::DeviceMesh& m = mesh.mesh();
  d.shape.assign(mesh.sizes().begin(), mesh.sizes().end());
  d.names = m.names();
  d.ranks = std::vector<std::int64_t>(m.rank_map().begin(), m.rank_map().end());
  for (const layout::Layout& l : m.dim_layouts()) d.layouts.push_back(layout::to_string(l));
  for (const FlatMesh& f : mesh.flattened()) {
    // Printed as the flattened mesh's layout (`dtplan mesh` style: one nested mode).
    const layout::Layout shown = layout::rank(f.layout) > 1 ? layout::nest(f.layout) : f.layout;
    FlattenedMeshInfo info{f.name, {}, layout::to_string(shown)};
    for (int i = 0; i < mesh.ndim(); ++i) {
      if ((f.dims >> i) & 1U) info.mesh_dims.push_back(i);
    }
    d.flattened.push_back(std::move(info));
  }
  d.gpus_per_node = mesh.gpus_per_node();
  d.hardware = mesh.hardware();
  return d;
}

Planner::Planner(MeshContext mesh, std::unique_ptr<CostModel> model, WarningSink* sink)
    : mesh_(std::move(mesh)),
      model_(std::move(model)),
      sink_(sink),
      pricer_(mesh_, *model_),
      search_(pricer_),
      description_(describe_mesh(mesh_)) {
  mesh_model_ = std::hash<std::string>{}(mesh_.key() + "|" + std::string(model_->name()));
}

Planner::~Planner() = default;

std::size_t Planner::KeyHash::operator()(const Key& k) const {
  std::size_t h = core::hash_combine(k.mesh_model, placement::hash_value(k.src));
  h = core::hash_combine(h, placement::hash_value(k.dst));
  return core::hash_combine(
      h, static_cast<std::uint64_t>(k.planner) * 2 + (k.merge ? 1 : 0) + (k.max_states << 3));
}

core::Result<std::shared_ptr<const RedistPlan>> Planner::plan(const TensorSpec& src,
                                                              const TensorSpec& dst,
                                                              const PlanOptions& options) {
  Key key{mesh_model_, src, dst, options.planner, options.merge, options.max_states};
  std::shared_ptr<const RedistPlan> out;
  if (auto it = cache_.find(key); it != cache_.end()) {
    ++hits_;
    out = it->second;
  } else {
    ++misses_;
    DTPLAN_TRY(RedistPlan p, plan_uncached(src, dst, options));
    out = std::make_shared<const RedistPlan>(std::move(p));
    cache_.emplace(std::move(key), out);
  }
  if (sink_ != nullptr) {
    for (const Warning& w : out->warnings) sink_->emit(mesh_.key(), w);
  }
  return out;
}

core::Result<Planner::Route> Planner::route(const TensorSpec& src, const TensorSpec& dst,
                                            const PlanOptions& options, bool cost_only) {
  DTPLAN_CHECK(check_request(mesh_, src, dst));
  const std::span<const std::int64_t> sizes = mesh_.sizes();
  Route r;
  r.kind = resolved_planner(options.planner, src, dst);
  if (options.planner == PlannerKind::kGreedy && needs_min_cost(src, dst)) {
    return core::Error::unsupported(
        "the greedy planner needs default shard orders and no _StridedShard (DTensor uses its "
        "graph planner for " +
        format_placement_list(src) + " -> " + format_placement_list(dst) +
        "); use --planner min-cost or auto");
  }
  r.start = endpoint(src);
  r.target = endpoint(dst);
  last_settled_ = 0;
  if (r.kind == PlannerKind::kGreedy) {
    DTPLAN_TRY(r.steps, plan_greedy(src.placements(), dst.placements(), sizes));
  } else {
    SearchOptions so{options.merge, Heuristic::kAStar, options.max_states};
    DTPLAN_TRY(SearchResult found, search_.plan(src.shape(), src.dtype(), r.start, r.target, so));
    r.steps = std::move(found.steps);
    r.searched_ps = found.cost_ps;
    last_settled_ = found.settled;
  }
  MergeMode mode = r.kind == PlannerKind::kGreedy ? MergeMode::kMerge : MergeMode::kWarnOnly;
  if (cost_only && mode == MergeMode::kMerge) mode = MergeMode::kMergeQuietly;
  if (options.merge && !(cost_only && mode == MergeMode::kWarnOnly)) {
    DTPLAN_TRY(MergeResult merged, merge_pass(mesh_, src.shape(), r.start, r.steps, mode));
    r.steps = std::move(merged.steps);
    r.warnings = std::move(merged.warnings);
    r.merged = std::move(merged.merged);
  }
  return r;
}

core::Result<std::int64_t> Planner::price_route(const Route& r, const TensorSpec& src,
                                                std::vector<PlanStep>* record) {
  const std::span<const std::int64_t> sizes = mesh_.sizes();
  RedistState state = r.start;
  std::int64_t total_ps = 0;
  for (const Transform& t : r.steps) {
    DTPLAN_TRY(StepQuery q, make_query(mesh_, src.shape(), src.dtype(), state, t));
    DTPLAN_TRY(PricedQuery p, pricer_.price(q));
    DTPLAN_TRY(state, apply_transform(state, t, sizes));
    total_ps += p.cost_ps;
    if (record != nullptr) {
      record->push_back({t, mesh_.groups(q.mesh_dims, q.flattened).size, q.bytes, p.price.cost_us,
                         p.price.algorithm, p.price.protocol, state});
    }
  }
  if (!equivalent(state, r.target, sizes)) {
    return core::Error::internal("redistribute: the " + std::string(planner_name(r.kind)) +
                                 " plan ends at " + state_text(state) + ", not at " +
                                 state_text(r.target));
  }
  if (r.searched_ps >= 0 && r.searched_ps != total_ps) {
    return core::Error::internal("redistribute: the min-cost search priced its plan at " +
                                 std::to_string(r.searched_ps) + " ps, the steps at " +
                                 std::to_string(total_ps) + " ps");
  }
  return total_ps;
}

core::Result<RedistPlan> Planner::plan_uncached(const TensorSpec& src, const TensorSpec& dst,
                                                const PlanOptions& options) {
  DTPLAN_TRY(Route r, route(src, dst, options));
  RedistPlan plan{description_,
                  src,
                  dst,
                  r.start,
                  r.target,
                  options.planner,
                  r.kind,
                  std::string(model_->name()),
                  options.merge,
                  {},
                  {},
                  0,
                  std::move(r.warnings),
                  {}};
  DTPLAN_TRY(std::int64_t total_ps, price_route(r, src, &plan.steps));
  plan.comm_counts = count_comms(plan.steps);
  plan.total_cost_us = static_cast<double>(total_ps) / 1e6;
  plan.trace = plan_trace(plan.start, plan.steps);
  DTPLAN_TRY(std::vector<Warning> costly, costly_merges(r, plan));
  std::vector<Transform> steps;
  for (const PlanStep& s : plan.steps) steps.push_back(s.transform);
  DTPLAN_TRY(std::vector<Warning> divergent,
             divergence_warnings(mesh_, src.dtype(), plan.start, steps));
  for (std::vector<Warning>* more : {&costly, &divergent}) {
    for (Warning& w : *more) plan.warnings.push_back(std::move(w));
  }
  return plan;
}

core::Result<std::vector<Warning>> Planner::costly_merges(const Route& r, const RedistPlan& plan) {
  std::vector<Warning> out;
  const std::span<const std::int64_t> sizes = mesh_.sizes();
  const std::span<const std::int64_t> shape = plan.src.shape();
  for (const MergedGroup& g : r.merged) {
    RedistState state = g.step == 0 ? plan.start : plan.steps[g.step - 1].state;
    const Transform& merged = plan.steps[g.step].transform;
    DTPLAN_TRY(StepQuery mq, make_query(mesh_, shape, plan.src.dtype(), state, merged));
    DTPLAN_TRY(PricedQuery mp, pricer_.price(mq));
    std::int64_t apart_ps = 0;
    for (const Transform& t : g.members) {
      DTPLAN_TRY(StepQuery q, make_query(mesh_, shape, plan.src.dtype(), state, t));
      DTPLAN_TRY(PricedQuery p, pricer_.price(q));
      apart_ps += p.cost_ps;
      DTPLAN_TRY(state, apply_transform(state, t, sizes));
    }
    if (mp.cost_ps <= apart_ps) continue;
    std::vector<std::string> names;
    for (std::int32_t m : merged.mesh_dims) names.push_back("\"" + mesh_.dim_label(m) + "\"");
    const std::string kind(step_kind_name(merged.kind));
    out.push_back(
        {WarningReason::kMergeCostsMore, merged.mesh_dims,
         "The " + kind + " merged on flattened mesh \"" + merged.flattened_mesh +
             "\" (mesh dims [" + core::join(names, ", ") + "]) costs " +
             core::format_fixed(static_cast<double>(mp.cost_ps) / 1e6, 3) + " us, more than the " +
             std::to_string(g.members.size()) + " separate " + kind + " steps it replaces (" +
             core::format_fixed(static_cast<double>(apart_ps) / 1e6, 3) +
             " us): the greedy planner merges unconditionally, as DTensor does (--no-merge turns "
             "merging off; the min-cost planner merges only where it pays)."});
  }
  return out;
}

core::Result<double> Planner::cost_uncached(const TensorSpec& src, const TensorSpec& dst,
                                            const PlanOptions& options) {
  DTPLAN_TRY(Route r, route(src, dst, options, true));
  if (r.searched_ps >= 0) return static_cast<double>(r.searched_ps) / 1e6;
  DTPLAN_TRY(std::int64_t total_ps, price_route(r, src, nullptr));
  return static_cast<double>(total_ps) / 1e6;
}

RedistState Planner::endpoint(const TensorSpec& spec) {
  if (!spec.has_strided_shard()) return plan_endpoint(spec, mesh_.sizes());
  if (const auto it = endpoints_.find(spec); it != endpoints_.end()) return it->second;
  return endpoints_.emplace(spec, plan_endpoint(spec, mesh_.sizes())).first->second;
}

std::vector<core::Result<double>> Planner::costs_uncached(const TensorSpec& src,
                                                          std::span<const TensorSpec* const> dsts,
                                                          const PlanOptions& options) {
  std::vector<core::Result<double>> out;
  out.reserve(dsts.size());
  // The targets for the search, by search graph (first seen first).
  struct Group {
    std::vector<Placement> extras;
    std::vector<std::size_t> members;
    std::vector<RedistState> targets;
  };
  std::vector<Group> groups;
  const RedistState start = endpoint(src);
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    const TensorSpec& dst = *dsts[i];
    if (resolved_planner(options.planner, src, dst) != PlannerKind::kMinCost ||
        !check_request(mesh_, src, dst).ok()) {
      out.push_back(cost_uncached(src, dst, options));
      continue;
    }
    out.emplace_back(0.0);  // set below
    RedistState target = endpoint(dst);
    std::vector<Placement> extras = SearchSpace::table_extras(start, target);
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.extras == extras; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{std::move(extras), {}, {}});
    g->members.push_back(i);
    g->targets.push_back(std::move(target));
  }
  const SearchOptions so{options.merge, Heuristic::kAStar, options.max_states};
  for (const Group& g : groups) {
    const auto costs = search_.plan_many(src.shape(), src.dtype(), start, g.targets, so);
    for (std::size_t k = 0; k < g.members.size(); ++k) {
      core::Result<double>& o = out[g.members[k]];
      if (costs[k].ok()) {
        o = static_cast<double>(*costs[k]) / 1e6;
      } else {
        o = costs[k].error();
      }
    }
  }
  last_settled_ = 0;
  return out;
}

core::Result<std::vector<double>> Planner::cost_lower_bounds(
    std::span<const TensorSpec* const> srcs, std::span<const TensorSpec* const> dsts,
    const PlanOptions& options, std::span<const double> seed_us,
    std::vector<std::int32_t>* origins) {
  std::vector<double> out(dsts.size(), 0.0);
  if (origins != nullptr) origins->assign(dsts.size(), -1);
  if (srcs.empty() || dsts.empty()) return out;
  std::vector<RedistState> starts, targets;
  for (const auto* list : {&srcs, &dsts}) {
    for (const TensorSpec* spec : *list) {
      if (spec->shape() != srcs.front()->shape() || spec->dtype() != srcs.front()->dtype()) {
        return core::Error::bad_input("redistribute: " + to_string(*spec) + " and " +
                                      to_string(*srcs.front()) + " are different tensors");
      }
      DTPLAN_CHECK(placement::check_mesh_args(*spec, mesh_.sizes()));
      (list == &srcs ? starts : targets).push_back(endpoint(*spec));
    }
  }
  const SearchOptions so{options.merge, Heuristic::kNone, options.max_states};
  std::vector<std::int64_t> seed_ps;
  for (double us : seed_us) seed_ps.push_back(to_ps(us));
  DTPLAN_TRY(const auto ps, search_.lower_bounds(srcs.front()->shape(), srcs.front()->dtype(),
                                                 starts, targets, so, seed_ps, origins));
  for (std::size_t i = 0; i < ps.size(); ++i) out[i] = static_cast<double>(ps[i]) / 1e6;
  last_settled_ = 0;
  return out;
}

}  // namespace dtplan::redist
