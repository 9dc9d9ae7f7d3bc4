#include "redist/replica_divergence.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/strings.h"
#include "cost/group_topology.h"
#include "layout/int_tensor.h"
#include "mesh/mesh_ops.h"

namespace dtplan::redist {

using placement::ReduceOp;

namespace {

using Ranks = std::vector<std::int64_t>;

// Whether a step's result depends on the order it adds in: a floating-point sum or average.
bool order_sensitive(const Transform& t, core::DType dtype) {
  if (t.kind != StepKind::kAllReduce && t.kind != StepKind::kReduceScatter) return false;
  if (!core::is_floating(dtype) || !t.src.is_partial()) return false;
  return t.src.reduce_op() == ReduceOp::kSum || t.src.reduce_op() == ReduceOp::kAvg;
}

// The step's groups, one row of global ranks each: the mesh dim's, or the flattened mesh's (what
// the executor runs).
core::Result<std::vector<Ranks>> step_groups(const MeshContext& mesh, const Transform& t) {
  if (!t.flattened()) return layout::to_rows(mesh.mesh().groups(mesh::mesh_dim(t.mesh_dims[0])));
  for (const mesh::DeviceMesh& flat : mesh::flattened_meshes(mesh.mesh())) {
    if (flat.names().size() == 1 && flat.names()[0] == t.flattened_mesh) {
      return layout::to_rows(flat.groups(mesh::MeshDim{0}));
    }
  }
  return core::Error::bad_input("step " + to_string(t) + ": the mesh has no flattened mesh '" +
                                t.flattened_mesh + "'");
}

// Position by position, the node of each rank (nodes numbered in the order they first appear)
// and its place among its node's members by global rank: equal signatures, equal node
// structures, rings and trees.
std::vector<std::int64_t> node_signature(const Ranks& ranks, std::int64_t gpus_per_node) {
  std::vector<std::int64_t> first_nodes;  // global node ids in order of first appearance
  std::vector<std::int64_t> out(ranks.size() * 2);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::int64_t node = ranks[i] / gpus_per_node;
    auto it = std::find(first_nodes.begin(), first_nodes.end(), node);
    if (it == first_nodes.end()) it = first_nodes.insert(first_nodes.end(), node);
    out[2 * i] = it - first_nodes.begin();
  }
  std::vector<std::size_t> order(ranks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return out[2 * a] != out[2 * b] ? out[2 * a] < out[2 * b] : ranks[a] < ranks[b];
  });
  for (std::size_t k = 0; k < order.size(); ++k) {
    const bool new_node = k == 0 || out[2 * order[k]] != out[2 * order[k - 1]];
    out[2 * order[k] + 1] = new_node ? 0 : out[2 * order[k - 1] + 1] + 1;
  }
  return out;
}

// Two groups of the step that reduce equal inputs differently, if any.
struct Mismatch {
  Ranks a, b;
};

core::Result<std::optional<Mismatch>> find_mismatch(const MeshContext& mesh, const Transform& t,
                                                    std::uint32_t replicated) {
  DTPLAN_TRY(std::vector<Ranks> rows, step_groups(mesh, t));
  std::uint32_t ignored = replicated;
  for (std::int32_t m : t.mesh_dims) ignored |= std::uint32_t{1} << m;
  // Per class (the coordinates on the other dims): the first group's signature and row.
  std::map<std::vector<std::int64_t>, std::pair<std::vector<std::int64_t>, std::size_t>> classes;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() < 2) return std::optional<Mismatch>{};
    std::vector<std::int64_t> key = mesh.mesh().coordinate(rows[r][0]).value_or(Ranks{});
    for (std::size_t m = 0; m < key.size(); ++m) {
      if ((ignored >> m) & 1U) key[m] = 0;
    }
    std::vector<std::int64_t> sig = node_signature(rows[r], mesh.gpus_per_node());
    auto [it, fresh] = classes.try_emplace(std::move(key), sig, r);
    if (!fresh && it->second.first != sig) {
      return std::optional<Mismatch>{Mismatch{rows[it->second.second], rows[r]}};
    }
  }
  return std::optional<Mismatch>{};
}

std::string quoted_dims(const MeshContext& mesh, std::uint32_t dims) {
  std::vector<std::string> out;
  for (int d = 0; d < mesh.ndim(); ++d) {
    if ((dims >> d) & 1U) out.push_back("\"" + mesh.dim_label(d) + "\"");
  }
  return "[" + core::join(out, ", ") + "]";
}

// "[6, 7, 8, 9, 10, 11] (6 ranks (2 nodes, 2-4 per node))", at most 8 ranks listed.
core::Result<std::string> group_text(const Ranks& ranks, std::int64_t gpus_per_node) {
  DTPLAN_TRY(cost::GroupTopology topo, cost::group_topology(ranks, gpus_per_node, "group"));
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) shown.push_back(std::to_string(ranks[i]));
  if (ranks.size() > 8) shown.emplace_back("...");
  return "[" + core::join(shown, ", ") + "] (" + cost::describe(topo) + ")";
}

core::Result<Warning> make_warning(const MeshContext& mesh, const RedistState& start,
                                   const Transform& t, std::size_t index, std::uint32_t replicated,
                                   const Mismatch& found) {
  std::uint32_t dims = 0;
  for (std::int32_t m : t.mesh_dims) dims |= std::uint32_t{1} << m;
  const std::string where = t.flattened() ? "flattened mesh \"" + t.flattened_mesh +
                                                "\" (mesh dims " + quoted_dims(mesh, dims) + ")"
                                          : "mesh dim \"" + mesh.dim_label(t.mesh_dims[0]) + "\"";
  DTPLAN_TRY(std::string a, group_text(found.a, mesh.gpus_per_node()));
  DTPLAN_TRY(std::string b, group_text(found.b, mesh.gpus_per_node()));
  std::string text =
      "Replicas may differ bitwise: the " + std::string(step_kind_name(t.kind)) + " on " + where +
      " (step " + std::to_string(index) + ") reduces equal inputs (replicated over mesh dims " +
      quoted_dims(mesh, replicated) +
      ") in groups whose ranks sit on nodes differently, e.g. ranks " + a + " and " + b +
      "; NCCL builds each group's algorithm and ring from its node structure, so "
      "they may add in different orders, and ranks that must hold equal values "
      "may hold different bits (PyTorch #171916).";
  // Replicated dims that the source held as Partial were reduced by earlier, separate steps.
  std::uint32_t reduced = 0;
  for (int d = 0; d < mesh.ndim(); ++d) {
    if (((replicated >> d) & 1U) && start.placements[static_cast<std::size_t>(d)].is_partial()) {
      reduced |= std::uint32_t{1} << d;
    }
  }
  if (reduced != 0) {
    text += " One reduction over mesh dims " + quoted_dims(mesh, dims | reduced) +
            " (a collective on a flattened mesh over them) reduces each element in one group.";
  } else {
    text += " A mesh whose groups of " + where +
            " all have the same node structure (sizes and rank orders aligned with the GPUs per "
            "node) avoids it.";
  }
  Warning w{WarningReason::kDivergentReplicas, {}, std::move(text)};
  w.mesh_dims.assign(t.mesh_dims.begin(), t.mesh_dims.end());
  return w;
}

}  // namespace

core::Result<std::vector<Warning>> divergence_warnings(const MeshContext& mesh, core::DType dtype,
                                                       const RedistState& start,
                                                       std::span<const Transform> steps) {
  std::vector<Warning> out;
  const std::span<const std::int64_t> sizes = mesh.sizes();
  RedistState state = start;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Transform& t = steps[i];
    std::uint32_t replicated = 0;
    for (int d = 0; d < mesh.ndim(); ++d) {
      const auto m = static_cast<std::size_t>(d);
      if (state.placements[m].is_replicate() && sizes[m] > 1) replicated |= std::uint32_t{1} << d;
    }
    const bool seen = std::any_of(out.begin(), out.end(), [&](const Warning& w) {
      return std::equal(w.mesh_dims.begin(), w.mesh_dims.end(), t.mesh_dims.begin(),
                        t.mesh_dims.end());
    });
    if (order_sensitive(t, dtype) && replicated != 0 && !seen) {
      DTPLAN_TRY(std::optional<Mismatch> found, find_mismatch(mesh, t, replicated));
      if (found) {
        DTPLAN_TRY(Warning w, make_warning(mesh, start, t, i, replicated, *found));
        out.push_back(std::move(w));
      }
    }
    DTPLAN_TRY(state, apply_transform(state, t, sizes));
  }
  return out;
}

}  // namespace dtplan::redist
