#include "redist/merge_pass.h"

#include <algorithm>
#include <optional>

#include "core/strings.h"

namespace dtplan::redist {

using placement::Placement;
using placement::ReduceOp;

namespace {

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
  }
  return out;
}

// try_flatten (§4.3): the merged step, or why not. `state` is the state before the group.
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
  bool any_avg = false;
  for (const Transform& t : group) {
    if (t.src == Placement::partial(ReduceOp::kAvg)) {
      any_avg = true;
      merged.avg_scale *= sizes[static_cast<std::size_t>(t.mesh_dims[0])];
    }
  }
  if (any_avg) merged.src = Placement::partial(ReduceOp::kSum);
  return merged;
}

}  // namespace

bool mergeable_pair(const Transform& first, const Transform& next) {
  if (first.src == next.src && first.dst == next.dst) return true;
  return first.dst == next.dst && sum_or_avg(first.src) && sum_or_avg(next.src);
}

core::Result<MergeResult> merge_pass(const MeshContext& mesh, std::span<const std::int64_t> shape,
                                     const RedistState& src, std::span<const Transform> steps,
                                     MergeMode mode) {
  const std::span<const std::int64_t> sizes = mesh.sizes();
  const bool quiet = mode == MergeMode::kMergeQuietly;
  MergeResult out;
  if (quiet) {
    bool group = false;
    for (std::size_t k = 0; k + 1 < steps.size() && !group; ++k) {
      group = mergeable_kind(steps[k]) && joins(steps[k], steps[k + 1]);
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
    std::size_t j = i + 1;
    while (j < steps.size() && joins(steps[i], steps[j])) ++j;
    const std::span<const Transform> group = steps.subspan(i, j - i);
    Failure why;
    std::optional<Transform> merged;
    if (group.size() >= 2) merged = try_flatten(c, state, group, why);
    if (merged && mode != MergeMode::kWarnOnly) {
      DTPLAN_CHECK(keep(*merged));
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
      for (const Transform& t : group) DTPLAN_CHECK(keep(t));
    }
    i = j;
  }
  return out;
}

}  // namespace dtplan::redist
