#include "redist/merge_pass.h"

#include <algorithm>
#include <optional>

#include "core/strings.h"

namespace dtplan::redist {

using placement::Placement;
using placement::ReduceOp;

namespace {

bool mergeable_pair(const Transform& first, const Transform& next);

bool mergeable_kind(const Transform& t) {
  const bool kind = t.kind == StepKind::kAllGather || t.kind == StepKind::kReduceScatter ||
                    t.kind == StepKind::kAllReduce;
  return kind && !t.flattened() && t.mesh_dims.size() == 1 && !t.src.is_strided_shard() &&
         !t.dst.is_strided_shard();
}

// Whether `next` joins the group that `first` starts (mergeable_pair is in merge_pass.h).
bool joins(const Transform& first, const Transform& next) {
  return mergeable_kind(next) && next.kind == first.kind && mergeable_pair(first, next);
}

// The mesh dims of a step as a bit mask.
std::uint32_t dim_mask(const Transform& t) {
  std::uint32_t out = 0;
  for (std::int32_t m : t.mesh_dims) out |= std::uint32_t{1} << m;
  return out;
}

// Whether a step changes the shard order of `tensor_dim` (-1: none).
bool touches(const Transform& t, std::int32_t tensor_dim) {
  return tensor_dim >= 0 && ((t.src.is_shard_like() && t.src.dim() == tensor_dim) ||
                             (t.dst.is_shard_like() && t.dst.dim() == tensor_dim));
}

struct Group {
  std::vector<std::size_t> members;  // the steps that join steps[i]'s group, steps[i] first
  std::vector<std::size_t> passed;   // steps between members that move nothing
  std::size_t end = 0;               // one past the last member
};

// The group that steps[i] (a mergeable kind) starts: the following steps that join it
// (docs/reference/placements.md §4.2), looking past steps that move nothing, which a merged step
// runs before. Such a step acts on other mesh dims than the members (and a member on a mesh dim
// that a passed step acts on ends the group), and either every mesh dim of it has size 1 (a
// one-rank group, skipped at runtime: its split changes no length, and its position in a shard
// order does not count) or the tensor is empty and the step leaves the shard order of the group's
// tensor dim alone.
Group scan_group(std::span<const Transform> steps, std::size_t i,
                 std::span<const std::int64_t> sizes, bool empty_tensor) {
  const Transform& first = steps[i];
  const std::int32_t tensor_dim = first.kind == StepKind::kReduceScatter ? first.dst.dim()
                                  : first.kind == StepKind::kAllGather   ? first.src.dim()
                                                                         : -1;
  Group g{{i}, {}, i + 1};
  std::uint32_t members = dim_mask(first);
  std::uint32_t passed = 0;
  for (std::size_t j = i + 1; j < steps.size(); ++j) {
    const Transform& t = steps[j];
    const std::uint32_t dims = dim_mask(t);
    if (joins(first, t) && (dims & passed) == 0) {
      g.members.push_back(j);
      members |= dims;
      g.end = j + 1;
      continue;
    }
    const bool one_rank = std::all_of(t.mesh_dims.begin(), t.mesh_dims.end(), [&](std::int32_t m) {
      return sizes[static_cast<std::size_t>(m)] == 1;
    });
    const bool moves_nothing = one_rank || (empty_tensor && !touches(t, tensor_dim));
    if ((dims & (members | passed)) != 0 || !moves_nothing) break;
    g.passed.push_back(j);
    passed |= dims;
  }
  while (!g.passed.empty() && g.passed.back() >= g.end) g.passed.pop_back();
  return g;
}

bool sum_or_avg(const Placement& p) {
  return p.is_partial() && (p.reduce_op() == ReduceOp::kSum || p.reduce_op() == ReduceOp::kAvg);
}

// PyTorch's placement tuple repr: "(Partial(sum), Replicate())", "(Shard(dim=0),)".
std::string placements_repr(std::span<const Placement> ps) {
  std::string out = "(";
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (i > 0) out += ", ";
    out += placement::to_long_string(ps[i]);
  }
  return out + (ps.size() == 1 ? ",)" : ")");
}

struct Failure {
  WarningReason reason = WarningReason::kNoFlattenedMesh;
  std::int32_t tensor_dim = 0;  // uneven: the affected tensor dim
  std::int64_t length = 0;      // uneven: its longest outer length
  std::int64_t n = 1;           // uneven: the merged group size
};

struct Context {
  const MeshContext& mesh;
  std::span<const std::int64_t> shape;
  std::span<const Placement> src;
  std::span<const Placement> dst;
};

std::string warning_text(const Context& c, std::span<const Transform> group,
                         std::span<const std::int32_t> dims, const Failure& f) {
  const std::string_view comm = step_kind_name(group.front().kind);
  std::vector<std::string> quoted;
  for (std::int32_t d : dims) quoted.push_back("\"" + c.mesh.dim_label(d) + "\"");
  std::string out = "While redistributing from " + placements_repr(c.src) + " to " +
                    placements_repr(c.dst) + ", " + std::to_string(group.size()) + " sequential " +
                    std::string(comm) +
                    " operations will be performed on mesh "
                    "dims [" +
                    core::join(quoted, ", ") + "]. This is suboptimal: each collective " +
                    "pays its own launch latency and synchronization point";
  // max and min give the same bits in any order: only sum and avg reductions can leave replicas
  // that differ bitwise.
  if (group.front().kind == StepKind::kAllGather || !sum_or_avg(group.front().src)) {
    out += ".";
  } else {
    out += ", and separate " + std::string(comm) +
           " operations reduce in different orders (each mesh dim's groups combine partial "
           "results on their own), so the replicas of the result may differ bitwise; one " +
           std::string(comm) + " over a flattened group reduces in one order for every rank.";
  }
  switch (f.reason) {
    case WarningReason::kNoFlattenedMesh:
      if (c.mesh.mesh().has_names()) {
        out += " To merge them, flatten mesh dimensions [" + core::join(quoted, ", ") + "] (mesh[" +
               core::join(quoted, ", ") + "]._flatten(), or dtplan's --flatten).";
      } else {
        std::vector<std::string> indices;
        for (std::int32_t d : dims) indices.push_back(std::to_string(d));
        out += " To merge them, flatten dims " + core::join(indices, ", ") + " of " +
               c.mesh.mesh().repr() + " (which needs mesh_dim_names).";
      }
      break;
    case WarningReason::kUnevenTensorShape:
      out += " They cannot be merged: tensor dimension " + std::to_string(f.tensor_dim) +
             " (up to " + std::to_string(f.length) +
             " long on a rank) is not evenly divisible "
             "by " +
             std::to_string(f.n) +
             ", the product of the mesh dim sizes that would need flattening.";
      break;
    case WarningReason::kNonAscendingMeshDims:
      out +=
          " It is not possible to merge non-ascending order " + std::string(comm) + " operations.";
      break;
    case WarningReason::kDivergentReplicas:
    case WarningReason::kMergeCostsMore:
      break;  // warnings of their own (warnings.h), never a reason a merge failed
  }
  return out;
}

// try_flatten (docs/reference/placements.md §4.3): the merged step, or why not. `state` is the
// state before the group.
std::optional<Transform> try_flatten(const Context& c, const RedistState& state,
                                     std::span<const Transform> group, Failure& why) {
  const Transform& first = group.front();
  std::vector<std::int32_t> order;
  for (const Transform& t : group) order.push_back(t.mesh_dims[0]);
  std::vector<std::int32_t> dims = order;
  std::sort(dims.begin(), dims.end());
  std::vector<std::int32_t> descending(dims.rbegin(), dims.rend());
  if ((first.kind == StepKind::kReduceScatter && order != dims) ||
      (first.kind == StepKind::kAllGather && order != descending)) {
    why.reason = WarningReason::kNonAscendingMeshDims;
    return std::nullopt;
  }
  std::uint32_t mask = 0;
  std::uint32_t real = 0;  // the merged dims of size > 1
  std::int64_t n = 1;
  const std::span<const std::int64_t> sizes = c.mesh.sizes();
  for (std::int32_t d : dims) {
    mask |= std::uint32_t{1} << d;
    n *= sizes[static_cast<std::size_t>(d)];
    if (sizes[static_cast<std::size_t>(d)] > 1) real |= std::uint32_t{1} << d;
  }
  const int flat = c.mesh.find_flattened(mask);
  if (flat < 0) {
    why.reason = WarningReason::kNoFlattenedMesh;
    return std::nullopt;
  }
  if (first.kind != StepKind::kAllReduce) {
    const bool gather = first.kind == StepKind::kAllGather;
    const std::int32_t t = gather ? first.src.dim() : first.dst.dim();
    const ChainStats outer = chain_stats(c.shape[static_cast<std::size_t>(t)],
                                         chain_of(state, t, sizes, gather ? real : 0));
    if (!divides_all(outer, n)) {
      why = {WarningReason::kUnevenTensorShape, t, outer.max_length, n};
      return std::nullopt;
    }
  }
  Transform merged{first.kind,
                   dims,
                   first.src,
                   first.dst,
                   c.mesh.flattened()[static_cast<std::size_t>(flat)].name,
                   1};
  // Members of one op keep it: P(avg) members average over the flattened group in the collective
  // (NCCL's ncclAvg), as one P(avg) mesh dim does. P(sum) and P(avg) mixed (mergeable_pair allows
  // no other mix) run as a sum divided afterwards by avg_scale, the product of the P(avg)
  // members' sizes.
  const bool mixed = std::any_of(group.begin(), group.end(),
                                 [&](const Transform& t) { return t.src != first.src; });
  if (mixed) {
    merged.src = Placement::partial(ReduceOp::kSum);
    for (const Transform& t : group) {
      if (t.src == Placement::partial(ReduceOp::kAvg)) {
        merged.avg_scale *= sizes[static_cast<std::size_t>(t.mesh_dims[0])];
      }
    }
  }
  return merged;
}

// Whether two single-dim steps may share a merge group (docs/reference/placements.md §4.2
// mergeable_placements).
bool mergeable_pair(const Transform& first, const Transform& next) {
  if (first.src == next.src && first.dst == next.dst) return true;
  return first.dst == next.dst && sum_or_avg(first.src) && sum_or_avg(next.src);
}

}  // namespace

core::Result<MergeResult> merge_pass(const MeshContext& mesh, std::span<const std::int64_t> shape,
                                     const RedistState& src, std::span<const Transform> steps,
                                     MergeMode mode) {
  const std::span<const std::int64_t> sizes = mesh.sizes();
  const bool quiet = mode == MergeMode::kMergeQuietly;
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  MergeResult out;
  if (quiet) {
    bool group = false;
    for (std::size_t k = 0; k < steps.size() && !group; ++k) {
      group = mergeable_kind(steps[k]) && scan_group(steps, k, sizes, empty).members.size() > 1;
    }
    if (!group) {
      out.steps.assign(steps.begin(), steps.end());
      return out;
    }
  }
  // The target, for messages (and a check that the steps apply).
  RedistState dst = src;
  if (!quiet) {
    for (const Transform& t : steps) {
      DTPLAN_TRY(dst, apply_transform(dst, t, sizes));
    }
  }
  const Context c{mesh, shape, src.placements, dst.placements};
  RedistState state = src;
  auto keep = [&](const Transform& t) -> core::Status {
    out.steps.push_back(t);
    DTPLAN_TRY(state, apply_transform(state, t, sizes));
    return {};
  };
  std::size_t i = 0;
  while (i < steps.size()) {
    if (!mergeable_kind(steps[i])) {
      DTPLAN_CHECK(keep(steps[i++]));
      continue;
    }
    const Group g = scan_group(steps, i, sizes, empty);
    std::vector<Transform> group;
    for (std::size_t k : g.members) group.push_back(steps[k]);
    Failure why;
    std::optional<Transform> merged;
    if (group.size() >= 2) merged = try_flatten(c, state, group, why);
    if (merged && mode != MergeMode::kWarnOnly) {
      out.merged.push_back({out.steps.size(), group});
      DTPLAN_CHECK(keep(*merged));
      for (std::size_t k : g.passed) DTPLAN_CHECK(keep(steps[k]));
    } else {
      if (group.size() >= 2 && !merged && !quiet) {
        Warning w{why.reason, {}, {}};
        for (const Transform& t : group) w.mesh_dims.push_back(t.mesh_dims[0]);
        std::sort(w.mesh_dims.begin(), w.mesh_dims.end());
        w.message = warning_text(c, group, w.mesh_dims, why);
        const bool seen = std::any_of(out.warnings.begin(), out.warnings.end(), [&](const auto& o) {
          return o.reason == w.reason && o.mesh_dims == w.mesh_dims;
        });
        if (!seen) out.warnings.push_back(std::move(w));
      }
      for (std::size_t k = i; k < g.end; ++k) DTPLAN_CHECK(keep(steps[k]));
    }
    i = g.end;
  }
  return out;
}

}  // namespace dtplan::redist
