#include "sim/redist_executor.h"

#include <algorithm>
#include <string>

#include "mesh/mesh_ops.h"
#include "placement/chunk.h"
#include "redist/split_chain.h"
#include "sim/local_ops.h"
#include "sim/scale_ops.h"
#include "sim/strided_ops.h"
#include "sim/tensor_collectives.h"

namespace dtplan::sim {

namespace {

using placement::Placement;
using redist::StepKind;
using redist::Transform;

std::string step_label(std::size_t index, const Transform& t) {
  return "step " + std::to_string(index) + " (" + redist::to_string(t) + ")";
}

// The groups of one mesh dim, or of the flattened mesh a merged step names.
core::Result<std::vector<Group>> step_groups(const mesh::DeviceMesh& root, const Transform& t) {
  layout::IntTensor table;
  if (!t.flattened()) {
    table = root.groups(mesh::MeshDim{static_cast<std::int8_t>(t.mesh_dims[0])});
  } else {
    bool found = false;
    for (const mesh::DeviceMesh& flat : mesh::flattened_meshes(root)) {
      if (flat.names().size() == 1 && flat.names()[0] == t.flattened_mesh) {
        table = flat.groups(mesh::MeshDim{0});
        found = true;
        break;
      }
    }
    if (!found) {
      return core::Error::bad_input("flattened mesh '" + t.flattened_mesh +
                                    "' is not one of the mesh's flattened meshes");
    }
  }
  return layout::to_rows(table);
}

}  // namespace

core::Result<RedistExecutor> RedistExecutor::create(const redist::RedistPlan& plan) {
  DTPLAN_TRY(mesh::DeviceMesh root, redist::build_described_mesh(plan.mesh));
  RedistExecutor ex(plan, root);
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  for (std::int64_t r : root.rank_map()) ex.world_ = std::max(ex.world_, r + 1);
  ex.ranks_.assign(root.rank_map().begin(), root.rank_map().end());
  std::sort(ex.ranks_.begin(), ex.ranks_.end());
  ex.coords_.resize(static_cast<std::size_t>(ex.world_));
  for (std::int64_t r : ex.ranks_) ex.coords_[static_cast<std::size_t>(r)] = *root.coordinate(r);
  ex.states_.push_back(plan.start);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Transform& t = plan.steps[i].transform;
    auto next = redist::apply_transform(ex.states_.back(), t, sizes);
    if (!next.ok()) return next.error().with_context("step " + std::to_string(i));
    Step step;
    auto groups = step_groups(root, t);
    if (!groups.ok()) return groups.error().with_context(step_label(i, t));
    step.groups = std::move(groups).value();
    // Every group must be the ranks that differ only on the step's mesh dims (the merged dims'
    // flattened groups), else the flattened mesh flattens other dims.
    step.index_in_group.assign(static_cast<std::size_t>(ex.world_), -1);
    std::int64_t expected = 1;
    for (std::int32_t m : t.mesh_dims) expected *= sizes[static_cast<std::size_t>(m)];
    for (const Group& g : step.groups) {
      if (static_cast<std::int64_t>(g.size()) != expected) {
        return core::Error::bad_input(step_label(i, t) + ": its groups have " +
                                      std::to_string(g.size()) + " ranks, not " +
                                      std::to_string(expected));
      }
      for (std::size_t k = 0; k < g.size(); ++k) {
        const auto& c0 = ex.coords_[static_cast<std::size_t>(g[0])];
        const auto& ck = ex.coords_[static_cast<std::size_t>(g[k])];
        for (std::size_t m = 0; m < sizes.size(); ++m) {
          const bool merged = std::find(t.mesh_dims.begin(), t.mesh_dims.end(),
                                        static_cast<std::int32_t>(m)) != t.mesh_dims.end();
          if (!merged && c0[m] != ck[m]) {
            return core::Error::bad_input(step_label(i, t) + ": group " + group_string(g) +
                                          " spans mesh dim " + std::to_string(m));
          }
        }
        step.index_in_group[static_cast<std::size_t>(g[k])] = static_cast<std::int32_t>(k);
      }
    }
    ex.steps_.push_back(std::move(step));
    ex.states_.push_back(std::move(next).value());
  }
  return ex;
}

std::optional<std::vector<std::int64_t>> RedistExecutor::coordinate(std::int64_t rank) const {
  if (rank < 0 || rank >= world_ || coords_[static_cast<std::size_t>(rank)].empty()) {
    return std::nullopt;
  }
  return coords_[static_cast<std::size_t>(rank)];
}

core::Status RedistExecutor::run(ProcessGroup& pg, RankTensors& tensors) const {
  for (std::size_t i = 0; i < steps_.size(); ++i) DTPLAN_CHECK(run_step(pg, i, tensors));
  return {};
}

namespace {

ReduceOp op_of(const Placement& p) { return p.reduce_op(); }

// Applies `fn(rank, tensor, coord, g)` to every held rank of the mesh, replacing its tensor.
template <class Fn>
core::Status for_each_held(const std::vector<std::int64_t>& ranks,
                           const std::vector<std::vector<std::int64_t>>& coords,
                           const std::vector<std::int32_t>& index_in_group, RankTensors& tensors,
                           Fn fn) {
  for (std::int64_t r : ranks) {
    if (!tensors.has(r)) continue;
    const auto i = static_cast<std::size_t>(r);
    auto out = fn(tensors.at(r), std::span<const std::int64_t>(coords[i]), index_in_group[i]);
    if (!out.ok()) return std::move(out).error().with_context("rank " + std::to_string(r));
    tensors.set(r, std::move(out).value());
  }
  return {};
}

// Rank g's piece of a replicated tensor under the shard-like placement `p` over n ranks.
core::Result<Tensor> split_piece(const Tensor& t, const Placement& p, std::int64_t n,
                                 std::int64_t g) {
  if (p.is_strided_shard()) return strided_split(t, p.dim(), p.split_factor(), n, g);
  if (p.dim() >= t.rank()) return chunk(t, p.dim(), n).error();  // names the bad dim
  const placement::IndexRange piece =
      placement::chunk_piece(t.shape()[static_cast<std::size_t>(p.dim())], n, g);
  return narrow(t, p.dim(), piece.begin, piece.length());
}

// What one step's run reads: the step, its groups, the mesh's held ranks and the tensors.
struct StepContext {
  ProcessGroup& pg;
  const Transform& t;
  const std::vector<Group>& groups;
  const std::vector<std::int32_t>& index_in_group;  // by rank; -1 outside the mesh
  const std::vector<std::int64_t>& ranks;
  const std::vector<std::vector<std::int64_t>>& coords;  // by rank
  std::int64_t world = 0;
  const std::vector<std::int64_t>& shape;  // the global tensor shape
  const redist::RedistState& before;       // the state the step starts from
  std::span<const std::int64_t> sizes;     // the mesh shape
  std::int64_t n = 1;                      // the group size
  RankTensors& tensors;
};

// One step's run on every held rank, a function per kind of work.
class StepRun {
 public:
  explicit StepRun(const StepContext& c) : c_(c) {}

  core::Status run() {
    const Transform& t = c_.t;
    switch (t.kind) {
      case StepKind::kLocalChunk:
        return split(t.dst);
      case StepKind::kLocalPartition:
        if (t.dst.reduce_op() == ReduceOp::kSum) return divide_all(c_.n);
        return {};
      case StepKind::kAllReduce:
        return all_reduce();
      case StepKind::kReduceScatter:
        if (t.dst.is_strided_shard()) {
          DTPLAN_CHECK(all_reduce());
          return split(t.dst);
        }
        DTPLAN_CHECK(reduce_scatter_dim(c_.pg, c_.groups, op_of(t.src), c_.tensors, t.dst.dim()));
        return scale_avg();
      case StepKind::kAllGather:
        return gather(t.src);
      case StepKind::kAllToAll:
        if (t.src.is_strided_shard() || t.dst.is_strided_shard()) {
          DTPLAN_CHECK(gather(t.src));
          return split(t.dst);
        }
        return all_to_all(t.src.dim(), t.dst.dim());
    }
    return {};
  }

 private:
  template <class Fn>
  core::Status held(Fn fn) {
    return for_each_held(c_.ranks, c_.coords, c_.index_in_group, c_.tensors, fn);
  }

  // The logical length of tensor dim `dim` on the rank at `coord` before the step.
  std::int64_t logical(std::span<const std::int64_t> coord, std::int32_t dim) const {
    return redist::logical_shape(c_.shape, c_.before, c_.t, c_.sizes,
                                 coord)[static_cast<std::size_t>(dim)];
  }

  core::Status divide_all(std::int64_t divisor) {
    return held(
        [&](Tensor& x, std::span<const std::int64_t>, std::int32_t) -> core::Result<Tensor> {
          DTPLAN_CHECK(divide(x, divisor));
          return std::move(x);
        });
  }

  // A merged step's mix of sum and avg runs as a sum divided by avg_scale.
  core::Status scale_avg() {
    return c_.t.avg_scale > 1 ? divide_all(c_.t.avg_scale) : core::Status{};
  }

  core::Status all_reduce() {
    DTPLAN_CHECK(c_.pg.all_reduce(c_.groups, op_of(c_.t.src), c_.tensors));
    return scale_avg();
  }

  // Gathers the shard-like `src` back to a replicated tensor on every group: pads each piece to
  // the group's block, gathers, then drops the padding (or reorders a StridedShard).
  core::Status gather(const Placement& src) {
    const std::int32_t d = src.dim();
    const std::int64_t n = c_.n;
    DTPLAN_CHECK(held(
        [&](Tensor& x, std::span<const std::int64_t> coord, std::int32_t) -> core::Result<Tensor> {
          const std::int64_t length = logical(coord, d);
          const std::int64_t block = src.is_strided_shard()
                                         ? strided_max_length(length, src.split_factor(), n)
                                         : redist::ceil_div(length, n);
          if (x.rank() <= d || x.shape()[static_cast<std::size_t>(d)] == block) return std::move(x);
          return pad_to(x, d, block);
        }));
    // Remember each held rank's logical length for the trim (coordinates are per rank).
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(c_.world), 0);
    for (std::int64_t r : c_.ranks) {
      if (c_.tensors.has(r)) {
        lengths[static_cast<std::size_t>(r)] = logical(c_.coords[static_cast<std::size_t>(r)], d);
      }
    }
    DTPLAN_CHECK(all_gather_dim(c_.pg, c_.groups, c_.tensors, d));
    for (std::int64_t r : c_.ranks) {
      if (!c_.tensors.has(r)) continue;
      const std::int64_t length = lengths[static_cast<std::size_t>(r)];
      Tensor& x = c_.tensors.at(r);
      core::Result<Tensor> out = core::Error::internal("unset");
      if (src.is_strided_shard()) {
        const std::int64_t block = x.shape()[static_cast<std::size_t>(d)] / n;
        const auto positions = strided_gather_positions(length, src.split_factor(), n, block);
        out = index_select(x, d, positions);
      } else {
        if (x.shape()[static_cast<std::size_t>(d)] == length) continue;
        out = narrow(x, d, 0, length);
      }
      if (!out.ok()) return std::move(out).error().with_context("rank " + std::to_string(r));
      c_.tensors.set(r, std::move(out).value());
    }
    return {};
  }

  // Splits every held rank's replicated tensor into its piece of `dst`.
  core::Status split(const Placement& dst) {
    return held([&](Tensor& x, std::span<const std::int64_t>, std::int32_t g) {
      return split_piece(x, dst, c_.n, g);
    });
  }

  // S(a) -> S(b): pads a to a multiple of its block and b to n blocks, exchanges, then trims.
  core::Status all_to_all(std::int32_t a, std::int32_t b) {
    const std::int64_t n = c_.n;
    DTPLAN_CHECK(held(
        [&](Tensor& x, std::span<const std::int64_t> coord, std::int32_t) -> core::Result<Tensor> {
          const std::int64_t la = logical(coord, a);
          const std::int64_t lb = logical(coord, b);
          Tensor out = std::move(x);
          if (la % n != 0) {
            DTPLAN_TRY(out, pad_to(out, a, redist::ceil_div(la, n)));
          }
          if (lb % n != 0) {
            DTPLAN_TRY(out, pad_to(out, b, redist::ceil_div(lb, n) * n));
          }
          return out;
        }));
    DTPLAN_CHECK(shard_dim_alltoall(c_.pg, c_.groups, c_.tensors, a, b));
    return held([&](Tensor& x, std::span<const std::int64_t> coord,
                    std::int32_t g) -> core::Result<Tensor> {
      const std::int64_t la = logical(coord, a);
      const std::int64_t lb = logical(coord, b);
      Tensor out = std::move(x);
      if (la % n != 0) {
        DTPLAN_TRY(out, narrow(out, a, 0, la));
      }
      if (lb % n != 0) {
        DTPLAN_TRY(out, narrow(out, b, 0, placement::chunk_length(lb, n, g)));
      }
      return out;
    });
  }

  const StepContext& c_;
};

}  // namespace

core::Status RedistExecutor::run_step(ProcessGroup& pg, std::size_t index,
                                      RankTensors& tensors) const {
  const Transform& t = plan_.steps[index].transform;
  const Step& step = steps_[index];
  const std::span<const std::int64_t> sizes = plan_.mesh.shape;
  std::int64_t n = 1;
  for (std::int32_t m : t.mesh_dims) n *= sizes[static_cast<std::size_t>(m)];
  if (n == 1) return {};  // DTensor skips every step on a one-rank group
  const StepContext context{.pg = pg,
                            .t = t,
                            .groups = step.groups,
                            .index_in_group = step.index_in_group,
                            .ranks = ranks_,
                            .coords = coords_,
                            .world = world_,
                            .shape = plan_.src.shape(),
                            .before = states_[index],
                            .sizes = sizes,
                            .n = n,
                            .tensors = tensors};
  core::Status status = StepRun(context).run();
  if (!status.ok()) return std::move(status).error().with_context(step_label(index, t));
  return {};
}

}  // namespace dtplan::sim
