#include "redist/search_space.h"

#include <algorithm>

#include "redist/step_pricer.h"

namespace dtplan::redist {

using placement::Placement;
using placement::ReduceOp;

std::vector<Placement> SearchSpace::table_extras(const RedistState& src, const RedistState& dst) {
  std::vector<Placement> out;
  for (const RedistState* s : {&src, &dst}) {
    for (const Placement& p : s->placements) {
      if (p.is_partial() || p.is_strided_shard()) out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

core::Status SearchSpace::setup(const MeshContext& mesh, std::span<const std::int64_t> shape,
                                core::DType dtype, const RedistState& src,
                                std::span<const RedistState> dsts, bool flattened_moves) {
  const RedistState& dst = dsts.front();
  mesh_ = &mesh;
  ndim_ = mesh.ndim();
  if (ndim_ > kMaxSearchDims) {
    return core::Error::unsupported("the min-cost planner handles meshes of at most " +
                                    std::to_string(kMaxSearchDims) + " dims, this one has " +
                                    std::to_string(ndim_) + "; use the greedy planner");
  }
  sizes_.assign(mesh.sizes().begin(), mesh.sizes().end());
  shape_.assign(shape.begin(), shape.end());
  item_bytes_ = core::dtype_bytes(dtype);
  numel_ = 1;
  for (std::int64_t s : shape) numel_ *= s;  // TensorSpec checked that numel * bytes fits
  global_bytes_ = static_cast<double>(numel_) * static_cast<double>(item_bytes_);
  flattened_moves_ = flattened_moves;

  table_.clear();
  partial_pids_.clear();
  strided_pids_.clear();
  table_.push_back(Placement::replicate());
  std::vector<ReduceOp> ops;
  std::vector<Placement> strided;
  auto collect = [&](const RedistState& s) {
    for (const Placement& p : s.placements) {
      if (p.is_partial()) ops.push_back(p.reduce_op());
      if (p.is_strided_shard() && std::find(strided.begin(), strided.end(), p) == strided.end()) {
        strided.push_back(p);
      }
    }
  };
  collect(src);
  for (const RedistState& d : dsts) collect(d);
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  for (ReduceOp op : ops) table_.push_back(Placement::partial(op));
  shard_pids_.clear();
  for (std::size_t t = 0; t < shape.size(); ++t) {
    shard_pids_.push_back(static_cast<std::uint8_t>(table_.size()));
    table_.push_back(Placement::shard(static_cast<std::int32_t>(t)));
  }
  for (const Placement& p : strided) table_.push_back(p);
  if (table_.size() > 255) {
    return core::Error::unsupported(
        "the min-cost planner handles at most 255 distinct placements (a tensor of rank " +
        std::to_string(shape.size()) + " needs " + std::to_string(table_.size()) +
        "); use the greedy planner");
  }
  kind_.assign(table_.size(), kPidR);
  tdim_.assign(table_.size(), -1);
  sum_pid_ = 0xff;
  for (std::size_t i = 0; i < table_.size(); ++i) {
    const Placement& p = table_[i];
    const auto id = static_cast<std::uint8_t>(i);
    if (p.is_partial()) {
      kind_[i] = kPidP;
      partial_pids_.push_back(id);
      if (p.reduce_op() == ReduceOp::kSum) sum_pid_ = id;
    } else if (p.is_shard()) {
      kind_[i] = kPidS;
      tdim_[i] = p.dim();
    } else if (p.is_strided_shard()) {
      kind_[i] = kPidSS;
      tdim_[i] = p.dim();
      strided_pids_.push_back(id);
    }
  }
  for (int m = 0; m < ndim_; ++m)
    dst_pid_[static_cast<std::size_t>(m)] = pid_of(dst.placements[static_cast<std::size_t>(m)]);
  chains_.clear();
  ml_.assign(shape.begin(), shape.end());
  orders_of(encode(dst), dst_orders_);
  return {};
}

bool SearchSpace::partial_sum_only() const {
  return partial_pids_.size() == 1 && partial_pids_[0] == sum_pid_;
}

std::uint8_t SearchSpace::pid_of(const Placement& p) const {
  for (std::size_t i = 0; i < table_.size(); ++i) {
    if (table_[i] == p) return static_cast<std::uint8_t>(i);
  }
  return 0;  // unreachable for placements of the two ends
}

void SearchSpace::set(StateKey& k, int m, std::uint8_t pid, int pos) const {
  const int pb = 8 * m, qb = 4 * m;
  k.placements = (k.placements & ~(std::uint64_t{0xff} << pb)) | (std::uint64_t{pid} << pb);
  k.positions =
      (k.positions & ~(std::uint32_t{0xf} << qb)) | (static_cast<std::uint32_t>(pos) << qb);
}

StateKey SearchSpace::encode(const RedistState& state) const {
  StateKey k;
  for (int m = 0; m < ndim_; ++m) {
    const Placement& p = state.placements[static_cast<std::size_t>(m)];
    int pos = 0;
    if (p.is_shard_like() && sizes_[static_cast<std::size_t>(m)] > 1) {
      for (const placement::ShardStep& s : state.order.steps_of(p.dim())) {
        if (s.mesh_dim == m) break;
        if (sizes_[static_cast<std::size_t>(s.mesh_dim)] > 1) ++pos;
      }
    }
    set(k, m, pid_of(p), pos);
  }
  return k;
}

ChainStats SearchSpace::chain(std::int32_t t, const std::uint8_t* dims, const std::uint8_t* pids,
                              int len) {
  ChainKey key{0, 0, t, len};
  for (int i = 0; i < len; ++i) {
    key.pids |= std::uint64_t{pids[i]} << (8 * i);
    key.dims |= std::uint32_t{dims[i]} << (4 * i);
  }
  if (ChainStats* hit = chains_.find(key)) return *hit;
  std::array<Split, kMaxSearchDims> splits;
  for (int i = 0; i < len; ++i) {
    splits[static_cast<std::size_t>(i)] = {sizes_[dims[i]], table_[pids[i]]};
  }
  const ChainStats stats =
      chain_stats(shape_[static_cast<std::size_t>(t)],
                  std::span<const Split>(splits.data(), static_cast<std::size_t>(len)));
  chains_.insert(key, stats);
  return stats;
}

std::int64_t SearchSpace::chain_max(std::int32_t t, const std::uint8_t* dims,
                                    const std::uint8_t* pids, int len) {
  // Nested torch.chunk ceilings compose: ceil(ceil(L/a)/b) = ceil(L/(ab)).
  std::int64_t product = 1;
  for (int i = 0; i < len; ++i) {
    if (kind_[pids[i]] != kPidS) return chain(t, dims, pids, len).max_length;
    product = std::min<std::int64_t>(product * sizes_[dims[i]], std::int64_t{1} << 62);
  }
  return ceil_div(shape_[static_cast<std::size_t>(t)], product);
}

void SearchSpace::load(StateKey key) {
  key_ = key;
  Orders& o = current_;
  // Restore the lengths of the previous state's split tensor dims.
  for (int k = 0; k < o.count; ++k) {
    const auto t = static_cast<std::size_t>(o.tensor_dim(k));
    ml_[t] = shape_[t];
  }
  o.count = 0;
  double shards = 1;
  for (int m = 0; m < ndim_; ++m) {
    const auto um = static_cast<std::size_t>(m);
    pid_[um] = static_cast<std::uint8_t>(key.placements >> (8 * m));
    pos_[um] = static_cast<std::uint8_t>((key.positions >> (4 * m)) & 0xf);
    if (kind_[pid_[um]] < kPidS) continue;
    shards *= static_cast<double>(sizes_[um]);
    const std::int32_t t = tdim_[pid_[um]];
    int k = o.find(t);
    if (k < 0) k = o.add(t);
    if (sizes_[um] > 1) o.place(k, pos_[um], static_cast<std::uint8_t>(m));
  }
  ideal_ = global_bytes_ / shards;
  o.sort_by_tensor_dim();
  for (int k = 0; k < o.count; ++k) {
    const Chain c = chain_of(o.tensor_dim(k));
    ml_[static_cast<std::size_t>(o.tensor_dim(k))] =
        chain_max(o.tensor_dim(k), c.dims.data(), c.pids.data(), c.length);
  }
}

StepQuery SearchSpace::query(const Move& mv) const {
  StepQuery q =
      query_from_lengths(mv.kind, mv.mask, mv.flattened, mesh_->groups(mv.mask, mv.flattened).size,
                         ml_, mv.dst_dim, mv.dst_after, item_bytes_, ideal_);
  q.avg_scale = mv.avg_scale;
  q.divides = mv.kind == StepKind::kLocalPartition && mv.dst == Placement::partial();
  return q;
}

void SearchSpace::orders_of(StateKey key, Orders& o) const {
  o.count = 0;
  for (int m = 0; m < ndim_; ++m) {
    const auto p = static_cast<std::uint8_t>(key.placements >> (8 * m));
    if (kind_[p] < kPidS || sizes_[static_cast<std::size_t>(m)] == 1) continue;
    int s = o.find(tdim_[p]);
    if (s < 0) s = o.add(tdim_[p]);
    o.place(s, static_cast<int>((key.positions >> (4 * m)) & 0xf), static_cast<std::uint8_t>(m));
  }
}

std::uint32_t SearchSpace::misplaced(StateKey key) const {
  Orders cur;  // deliberately uninitialised arrays: only [0, count) and [0, length) are read
  orders_of(key, cur);
  std::uint32_t out = 0;
  for (int i = 0; i < cur.count; ++i) {
    const int di = dst_orders_.find(cur.tensor_dim(i));
    const int dst_length = di < 0 ? 0 : dst_orders_.length(di);
    int k = 0;
    for (; k < cur.length(i) && k < dst_length; ++k) {
      const std::uint8_t m = cur.mesh_dim(i, k);
      if (dst_orders_.mesh_dim(di, k) != m ||
          static_cast<std::uint8_t>(key.placements >> (8 * m)) != dst_pid_[m]) {
        break;
      }
    }
    for (; k < cur.length(i); ++k) {
      const std::uint8_t m = cur.mesh_dim(i, k);
      if (static_cast<std::uint8_t>(key.placements >> (8 * m)) == dst_pid_[m]) {
        out |= std::uint32_t{1} << m;
      }
    }
  }
  return out;
}

}  // namespace dtplan::redist
