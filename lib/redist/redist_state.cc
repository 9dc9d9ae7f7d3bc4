#include "redist/redist_state.h"

#include <algorithm>

#include "placement/chunk.h"
#include "placement/placement_text.h"

namespace dtplan::redist {

using placement::Placement;
using placement::ShardOrder;
using placement::ShardStep;

namespace {

ShardOrder without(const ShardOrder& order, std::int32_t mesh_dim) {
  std::vector<ShardStep> steps;
  for (const ShardStep& s : order.steps()) {
    if (s.mesh_dim != mesh_dim) steps.push_back(s);
  }
  return ShardOrder::from_steps(std::move(steps)).value();  // a subset of a valid order
}

core::Error step_error(const Transform& t, const std::string& why) {
  return core::Error::bad_input("step " + to_string(t) + ": " + why);
}

std::string dim_text(std::int32_t m, const Placement& p) {
  return "mesh dim " + std::to_string(m) + " holds " + placement::to_string(p);
}

// The checks every member of `t` must pass before its placement changes.
core::Status check_members(const RedistState& state, const Transform& t,
                           std::span<const std::int64_t> sizes) {
  if (t.mesh_dims.empty()) return step_error(t, "no mesh dim");
  const bool merged = t.mesh_dims.size() > 1;
  if (merged != t.flattened()) {
    return step_error(t, merged ? "a step on several mesh dims must name its flattened mesh"
                                : "a flattened step must span at least two mesh dims");
  }
  // A merged reduction of P(sum) and P(avg) members runs as a sum (src P(sum)) and divides by
  // avg_scale, the product of the P(avg) members' sizes, afterwards
  // (docs/reference/placements.md §4.3 step 6).
  const bool sum_avg = merged && t.src == Placement::partial();
  std::int64_t avg_product = 1;
  for (std::size_t i = 0; i < t.mesh_dims.size(); ++i) {
    const std::int32_t m = t.mesh_dims[i];
    if (m < 0 || static_cast<std::size_t>(m) >= state.placements.size()) {
      return step_error(t, "mesh dim " + std::to_string(m) + " does not exist (the mesh has " +
                               std::to_string(state.placements.size()) + " dims)");
    }
    if (i > 0 && m <= t.mesh_dims[i - 1]) {
      return step_error(t, "the mesh dims of a flattened step must be ascending and distinct");
    }
    const Placement& p = state.placements[static_cast<std::size_t>(m)];
    const bool avg = sum_avg && p == Placement::partial(placement::ReduceOp::kAvg);
    if (p != t.src && !avg) {
      return step_error(t, dim_text(m, p) + ", not " + placement::to_string(t.src));
    }
    if (avg) avg_product *= sizes[static_cast<std::size_t>(m)];
  }
  if (t.avg_scale != avg_product) {
    return step_error(t, "avg_scale " + std::to_string(t.avg_scale) +
                             " is not the product of the sizes of its P(avg) mesh dims (" +
                             std::to_string(avg_product) + ")");
  }
  DTPLAN_TRY(StepKind kind, transition_kind(t.src, t.dst));
  if (kind != t.kind) {
    return step_error(t, "a step from " + placement::to_string(t.src) + " to " +
                             placement::to_string(t.dst) + " is a " +
                             std::string(step_kind_name(kind)) + ", not a " +
                             std::string(step_kind_name(t.kind)));
  }
  if (merged) {
    const bool mergeable_kind = kind == StepKind::kAllGather || kind == StepKind::kReduceScatter ||
                                kind == StepKind::kAllReduce;
    if (!mergeable_kind || t.src.is_strided_shard() || t.dst.is_strided_shard()) {
      return step_error(t,
                        "only all_gather, reduce_scatter and all_reduce of Shard and "
                        "Partial placements run on a flattened mesh");
    }
  }
  return {};
}

}  // namespace

RedistState state_of(const placement::TensorSpec& spec) {
  return {spec.placements(), spec.shard_order()};
}

bool equivalent(const RedistState& a, const RedistState& b, std::span<const std::int64_t> sizes) {
  if (a.placements != b.placements) return false;
  // Per split tensor dim, the mesh dims of size > 1 in order, compared as they are walked.
  auto real = [&](std::span<const ShardStep> steps, std::size_t& i) {
    while (i < steps.size() && sizes[static_cast<std::size_t>(steps[i].mesh_dim)] == 1) ++i;
    return i < steps.size() ? steps[i].mesh_dim : -1;
  };
  for (std::size_t m = 0; m < a.placements.size(); ++m) {
    const Placement& p = a.placements[m];
    if (!p.is_shard_like()) continue;
    const std::span<const ShardStep> sa = a.order.steps_of(p.dim());
    const std::span<const ShardStep> sb = b.order.steps_of(p.dim());
    std::size_t i = 0;
    std::size_t j = 0;
    for (;; ++i, ++j) {
      const std::int32_t x = real(sa, i);
      if (x != real(sb, j)) return false;
      if (x < 0) break;
    }
  }
  return true;
}

bool poppable(const RedistState& state, std::int32_t m, std::span<const std::int64_t> sizes) {
  const Placement& p = state.placements[static_cast<std::size_t>(m)];
  if (!p.is_shard_like()) return false;
  bool seen = false;
  for (const ShardStep& s : state.order.steps_of(p.dim())) {
    if (s.mesh_dim == m) {
      seen = true;
    } else if (seen && sizes[static_cast<std::size_t>(s.mesh_dim)] != 1) {
      return sizes[static_cast<std::size_t>(m)] == 1;
    }
  }
  return seen;
}

core::Result<RedistState> apply_transform(const RedistState& state, const Transform& t,
                                          std::span<const std::int64_t> sizes) {
  if (sizes.size() != state.placements.size()) {
    return step_error(t, "the state has " + std::to_string(state.placements.size()) +
                             " mesh dims, the mesh " + std::to_string(sizes.size()));
  }
  DTPLAN_CHECK(check_members(state, t, sizes));
  RedistState out = state;
  const bool pops = t.src.is_shard_like();
  const bool appends = t.dst.is_shard_like();
  if (pops && appends && t.src.dim() == t.dst.dim()) {
    return step_error(t, "an all_to_all must move the split to another tensor dim");
  }
  if (pops) {
    // Gathers undo the innermost split first: descending mesh dims.
    for (auto it = t.mesh_dims.rbegin(); it != t.mesh_dims.rend(); ++it) {
      if (!poppable(out, *it, sizes)) {
        return step_error(t, "mesh dim " + std::to_string(*it) +
                                 " is not the innermost split of tensor dim " +
                                 std::to_string(t.src.dim()) + " (order " +
                                 placement::to_string(out.order) + ")");
      }
      out.order = without(out.order, *it);
      out.placements[static_cast<std::size_t>(*it)] = Placement::replicate();
    }
  }
  for (std::int32_t m : t.mesh_dims) {
    if (appends) out.order.append(t.dst.dim(), m);
    out.placements[static_cast<std::size_t>(m)] = t.dst;
  }
  return out;
}

void chain_into(const RedistState& state, std::int32_t tensor_dim,
                std::span<const std::int64_t> sizes, std::uint32_t stop, std::vector<Split>& out) {
  out.clear();
  for (const ShardStep& s : state.order.steps_of(tensor_dim)) {
    const auto m = static_cast<std::size_t>(s.mesh_dim);
    if (((stop >> m) & 1U) && sizes[m] != 1) break;  // a size-1 split changes nothing
    out.push_back({sizes[m], state.placements[m]});
  }
}

std::vector<Split> chain_of(const RedistState& state, std::int32_t tensor_dim,
                            std::span<const std::int64_t> sizes, std::uint32_t stop) {
  std::vector<Split> out;
  chain_into(state, tensor_dim, sizes, stop, out);
  return out;
}

std::vector<ChainStats> dim_stats(std::span<const std::int64_t> shape, const RedistState& state,
                                  std::span<const std::int64_t> sizes) {
  std::vector<ChainStats> out;
  thread_local std::vector<Split> chain;
  for (std::size_t t = 0; t < shape.size(); ++t) {
    chain_into(state, static_cast<std::int32_t>(t), sizes, 0, chain);
    out.push_back(chain_stats(shape[t], chain));
  }
  return out;
}

void max_lengths(std::span<const std::int64_t> shape, const RedistState& state,
                 std::span<const std::int64_t> sizes, std::vector<std::int64_t>& out) {
  out.clear();
  thread_local std::vector<Split> chain;
  for (std::size_t t = 0; t < shape.size(); ++t) {
    chain_into(state, static_cast<std::int32_t>(t), sizes, 0, chain);
    out.push_back(chain_max_length(shape[t], chain));
  }
}

namespace {

std::vector<std::int64_t> shape_until(std::span<const std::int64_t> shape, const RedistState& state,
                                      std::span<const std::int64_t> sizes,
                                      std::span<const std::int64_t> coord, std::uint32_t stop) {
  std::vector<std::int64_t> out(shape.begin(), shape.end());
  for (std::size_t t = 0; t < out.size(); ++t) {
    for (const ShardStep& s : state.order.steps_of(static_cast<std::int32_t>(t))) {
      const auto m = static_cast<std::size_t>(s.mesh_dim);
      if (((stop >> m) & 1U) && sizes[m] != 1) break;  // a size-1 split changes nothing
      out[t] = placement::split_length(state.placements[m], out[t], sizes[m], coord[m]);
    }
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> local_shape(std::span<const std::int64_t> shape, const RedistState& state,
                                      std::span<const std::int64_t> sizes,
                                      std::span<const std::int64_t> coord) {
  return shape_until(shape, state, sizes, coord, 0);
}

std::vector<std::int64_t> logical_shape(std::span<const std::int64_t> shape,
                                        const RedistState& before, const Transform& t,
                                        std::span<const std::int64_t> sizes,
                                        std::span<const std::int64_t> coord) {
  std::uint32_t stop = 0;
  for (std::int32_t m : t.mesh_dims) stop |= std::uint32_t{1} << m;
  return shape_until(shape, before, sizes, coord, stop);
}

std::string trace_state(const RedistState& state) {
  return placement::format_trace_state(state.placements, state.order);
}

std::string state_text(const RedistState& state) {
  return placement::format_placement_list(state.placements, state.order);
}

}  // namespace dtplan::redist
