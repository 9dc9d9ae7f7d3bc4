// SearchSpace::moves: the moves of the current state in the fixed order of search_space.h, one
// function per move family.

#include <array>

#include "redist/search_space.h"

namespace dtplan::redist {

using placement::Placement;
using placement::ReduceOp;

namespace {

constexpr std::size_t idx(int i) { return static_cast<std::size_t>(i); }

}  // namespace

Move SearchSpace::single_move(StepKind kind, int m, const Placement& src,
                              const Placement& dst) const {
  return Move{kind, std::uint32_t{1} << m, -1, src, dst, 1, -1, 0, key_};
}

SearchSpace::Chain SearchSpace::chain_of(std::int32_t t) const {
  Chain c;
  const int k = current_.find(t);
  c.length = k < 0 ? 0 : current_.length(k);
  for (int i = 0; i < c.length; ++i) {
    c.dims[idx(i)] = current_.mesh_dim(k, i);
    c.pids[idx(i)] = pid_[c.dims[idx(i)]];
  }
  return c;
}

void SearchSpace::append(Move& mv, int x, std::uint8_t np, std::int32_t t) {
  Chain c = chain_of(t);
  const int pos = c.length;
  const bool splits = sizes_[idx(x)] > 1;
  if (splits) {
    c.dims[idx(c.length)] = static_cast<std::uint8_t>(x);
    c.pids[idx(c.length++)] = np;
  }
  mv.dst_dim = t;
  mv.dst_after = chain_max(t, c.dims.data(), c.pids.data(), c.length);
  set(mv.next, x, np, splits ? pos : 0);
}

bool SearchSpace::removable(int k, int m) const {
  const std::uint8_t p = pid_[idx(m)];
  if (kind_[p] < kPidS || tdim_[p] != current_.tensor_dim(k)) return false;
  const int length = current_.length(k);
  return sizes_[idx(m)] == 1 || (length > 0 && current_.mesh_dim(k, length - 1) == m);
}

bool SearchSpace::removals(MoveVisitor& v, std::uint8_t from,
                           std::span<const std::uint8_t> targets) {
  for (int k = 0; k < current_.count; ++k) {
    const std::int32_t a = current_.tensor_dim(k);
    for (int m = 0; m < ndim_; ++m) {
      const std::uint8_t p = pid_[idx(m)];
      if (!removable(k, m) || (from != kAnyShard && kind_[p] != from)) continue;
      if (targets.empty()) {
        Move mv = single_move(StepKind::kAllGather, m, table_[p], Placement::replicate());
        set(mv.next, m, 0, 0);
        if (!v.visit(mv)) return false;
      }
      for (std::uint8_t np : targets) {
        if (tdim_[np] == a) continue;
        Move mv = single_move(StepKind::kAllToAll, m, table_[p], table_[np]);
        append(mv, m, np, tdim_[np]);
        if (!v.visit(mv)) return false;
      }
    }
  }
  return true;
}

bool SearchSpace::to_each(MoveVisitor& v, std::uint8_t from, StepKind kind,
                          std::span<const std::uint8_t> targets) {
  for (int m = 0; m < ndim_; ++m) {
    const std::uint8_t p = pid_[idx(m)];
    if (kind_[p] != from) continue;
    for (std::uint8_t np : targets) {
      Move mv = single_move(kind, m, table_[p], table_[np]);
      if (kind_[np] >= kPidS) {
        append(mv, m, np, tdim_[np]);
      } else {
        set(mv.next, m, np, 0);
      }
      if (!v.visit(mv)) return false;
    }
  }
  return true;
}

SearchSpace::FlatGroup SearchSpace::flat_group(const FlatMatch& match) const {
  FlatGroup g{match.dims, match.flattened, mesh_->groups(match.dims, match.flattened).size};
  for (int m = 0; m < ndim_; ++m) {
    if ((g.dims >> m) & 1U) g.members[idx(g.count++)] = m;
  }
  return g;
}

bool SearchSpace::flat_reductions(MoveVisitor& v, const FlatGroup& g) {
  // Every member Partial, one op or a mix of sum and avg (docs/reference/placements.md §4.2).
  const std::uint8_t p0 = pid_[idx(g.members[0])];
  bool partial = true, same = true, sum_avg = true, any_avg = false;
  std::int64_t avg_scale = 1;
  for (int i = 0; i < g.count; ++i) {
    const std::uint8_t p = pid_[idx(g.members[idx(i)])];
    partial = partial && kind_[p] == kPidP;
    if (!partial) break;
    same = same && p == p0;
    sum_avg = sum_avg &&
              (table_[p].reduce_op() == ReduceOp::kSum || table_[p].reduce_op() == ReduceOp::kAvg);
    if (table_[p].reduce_op() == ReduceOp::kAvg) {
      any_avg = true;
      avg_scale *= sizes_[idx(g.members[idx(i)])];
    }
  }
  if (!partial || !(same || sum_avg)) return true;
  // One op (P(avg) included: ncclAvg over the flattened group) keeps it; sum and avg mixed run
  // as a sum divided by avg_scale (merge_pass.h).
  if (same) avg_scale = 1;
  const Placement src = any_avg && !same ? Placement::partial(ReduceOp::kSum) : table_[p0];
  auto flat = [&](StepKind kind, const Placement& dst) {
    return Move{kind, g.dims, g.flattened, src, dst, avg_scale, -1, 0, key_};
  };
  Move all_reduce = flat(StepKind::kAllReduce, Placement::replicate());
  for (int i = 0; i < g.count; ++i) set(all_reduce.next, g.members[idx(i)], 0, 0);
  if (!v.visit(all_reduce)) return false;
  const auto rank = static_cast<std::int32_t>(shape_.size());
  for (std::int32_t b = 0; b < rank; ++b) {
    Chain c = chain_of(b);
    if (!divides_all(chain(b, c.dims.data(), c.pids.data(), c.length), g.size)) continue;
    const std::uint8_t np = shard_pids_[idx(b)];
    Move mv = flat(StepKind::kReduceScatter, table_[np]);
    int pos = c.length;
    for (int i = 0; i < g.count; ++i) {
      const int m = g.members[idx(i)];
      if (sizes_[idx(m)] > 1) {
        c.dims[idx(c.length)] = static_cast<std::uint8_t>(m);
        c.pids[idx(c.length++)] = np;
      }
      set(mv.next, m, np, sizes_[idx(m)] > 1 ? pos++ : 0);
    }
    mv.dst_dim = b;
    mv.dst_after = chain_max(b, c.dims.data(), c.pids.data(), c.length);
    if (!v.visit(mv)) return false;
  }
  return true;
}

bool SearchSpace::flat_gather(MoveVisitor& v, const FlatGroup& g) {
  // Every member S(a); the members of size > 1 are a's innermost splits, ascending.
  const std::uint8_t p0 = pid_[idx(g.members[0])];
  if (kind_[p0] != kPidS) return true;
  int real = 0;
  for (int i = 0; i < g.count; ++i) {
    if (pid_[idx(g.members[idx(i)])] != p0) return true;
    real += sizes_[idx(g.members[idx(i)])] > 1 ? 1 : 0;
  }
  const std::int32_t a = tdim_[p0];
  const Chain c = chain_of(a);
  if (real > c.length) return true;
  int j = c.length - real;
  for (int i = 0; i < g.count; ++i) {
    const int m = g.members[idx(i)];
    if (sizes_[idx(m)] > 1 && c.dims[idx(j++)] != m) return true;
  }
  if (!divides_all(chain(a, c.dims.data(), c.pids.data(), c.length - real), g.size)) return true;
  Move mv{StepKind::kAllGather,
          g.dims,
          g.flattened,
          table_[p0],
          Placement::replicate(),
          1,
          -1,
          0,
          key_};
  for (int i = 0; i < g.count; ++i) set(mv.next, g.members[idx(i)], 0, 0);
  return v.visit(mv);
}

void SearchSpace::moves(MoveVisitor& v) {
  const std::uint8_t to_replicate[] = {0};
  const bool done = removals(v, kPidS, shard_pids_) &&                           // 1 S(a) -> S(b)
                    removals(v, kPidS, {}) &&                                    // 2 S -> R
                    to_each(v, kPidP, StepKind::kAllReduce, to_replicate) &&     // 3 P -> R
                    to_each(v, kPidR, StepKind::kLocalChunk, shard_pids_) &&     // 4 R -> S(b)
                    to_each(v, kPidP, StepKind::kReduceScatter, shard_pids_) &&  // 5 P -> S(b)
                    to_each(v, kPidR, StepKind::kLocalPartition, partial_pids_) &&  // 6 R -> P(op)
                    removals(v, kPidSS, {}) &&                                      // 7 _S -> R
                    to_each(v, kPidR, StepKind::kLocalChunk, strided_pids_) &&      // 8 R -> _S
                    removals(v, kPidSS, shard_pids_) &&                          // 9 _S(a) -> S(b)
                    removals(v, kAnyShard, strided_pids_) &&                     // 10 -> _S(b)
                    to_each(v, kPidP, StepKind::kReduceScatter, strided_pids_);  // 11 P -> _S
  if (!done || !flattened_moves_) return;
  // 12 flattened collectives: all_reduce and reduce_scatters, then all_gather, per dim set.
  for (const FlatMatch& match : mesh_->flat_matches()) {
    const FlatGroup g = flat_group(match);
    if (!flat_reductions(v, g) || !flat_gather(v, g)) return;
  }
}

}  // namespace dtplan::redist
