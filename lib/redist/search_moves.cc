// SearchSpace::moves: the moves of the current state in the fixed order of search_space.h.

#include <array>

#include "redist/search_space.h"

namespace dtplan::redist {

using placement::Placement;
using placement::ReduceOp;

void SearchSpace::moves(MoveVisitor& v) {
  const auto rank = static_cast<std::int32_t>(shape_.size());
  auto size = [&](int m) { return sizes_[static_cast<std::size_t>(m)]; };
  auto pid = [&](int m) { return pid_[static_cast<std::size_t>(m)]; };
  Move mv;
  auto single = [&](StepKind kind, int m, const Placement& src, const Placement& dst) {
    mv = Move{kind, std::uint32_t{1} << m, -1, src, dst, 1, -1, 0, key_};
  };
  // The current splits of tensor dim b (size > 1), with `extra` mesh dims (placement id np)
  // appended; fills dims/pids and returns the count.
  std::array<std::uint8_t, kMaxSearchDims> dims{};
  std::array<std::uint8_t, kMaxSearchDims> pids{};
  auto chain_of_dim = [&](std::int32_t b) {
    const int kb = td_index(b);
    const int cnt = kb < 0 ? 0 : cnt_[static_cast<std::size_t>(kb)];
    for (int i = 0; i < cnt; ++i) {
      dims[static_cast<std::size_t>(i)] =
          lst_[static_cast<std::size_t>(kb)][static_cast<std::size_t>(i)];
      pids[static_cast<std::size_t>(i)] = pid(dims[static_cast<std::size_t>(i)]);
    }
    return cnt;
  };
  // Appends mesh dim x with placement id np to tensor dim b in mv.next.
  auto append = [&](int x, std::uint8_t np, std::int32_t b) {
    int len = chain_of_dim(b);
    const int pos = len;
    if (size(x) > 1) {
      dims[static_cast<std::size_t>(len)] = static_cast<std::uint8_t>(x);
      pids[static_cast<std::size_t>(len++)] = np;
    }
    mv.dst_dim = b;
    mv.dst_after = chain_max(b, dims.data(), pids.data(), len);
    set(mv.next, x, np, size(x) > 1 ? pos : 0);
  };
  // Whether mesh dim m may leave the order of the k-th split tensor dim.
  auto removable = [&](int k, int m) {
    const std::uint8_t p = pid(m);
    if (kind_[p] < kPidS || tdim_[p] != td_[static_cast<std::size_t>(k)]) return false;
    const int cnt = cnt_[static_cast<std::size_t>(k)];
    return size(m) == 1 ||
           (cnt > 0 && lst_[static_cast<std::size_t>(k)][static_cast<std::size_t>(cnt - 1)] == m);
  };
  const Placement replicate = Placement::replicate();
  // Moves of a tensor dim's removable splits held as `from` (kAnyShard: S or _S): with no
  // targets all_gather to R, else all_to_all to each target id of another tensor dim.
  auto removals = [&](std::uint8_t from, std::span<const std::uint8_t> targets) {
    for (int k = 0; k < ntd_; ++k) {
      const std::int32_t a = td_[static_cast<std::size_t>(k)];
      for (int m = 0; m < ndim_; ++m) {
        if (!removable(k, m) || (from != kAnyShard && kind_[pid(m)] != from)) continue;
        if (targets.empty()) {
          single(StepKind::kAllGather, m, table_[pid(m)], replicate);
          set(mv.next, m, 0, 0);
          if (!v.visit(mv)) return false;
        }
        for (std::uint8_t np : targets) {
          if (tdim_[np] == a) continue;
          single(StepKind::kAllToAll, m, table_[pid(m)], table_[np]);
          append(m, np, tdim_[np]);
          if (!v.visit(mv)) return false;
        }
      }
    }
    return true;
  };
  // Moves `kind` from every mesh dim holding `from` to each target id.
  auto to_each = [&](std::uint8_t from, StepKind kind, std::span<const std::uint8_t> targets) {
    for (int m = 0; m < ndim_; ++m) {
      if (kind_[pid(m)] != from) continue;
      for (std::uint8_t np : targets) {
        single(kind, m, table_[pid(m)], table_[np]);
        if (kind_[np] >= kPidS) {
          append(m, np, tdim_[np]);
        } else {
          set(mv.next, m, np, 0);
        }
        if (!v.visit(mv)) return false;
      }
    }
    return true;
  };
  const std::uint8_t to_replicate[] = {0};
  const bool done = removals(kPidS, shard_pids_) &&                              // 1 S(a) -> S(b)
                    removals(kPidS, {}) &&                                       // 2 S -> R
                    to_each(kPidP, StepKind::kAllReduce, to_replicate) &&        // 3 P -> R
                    to_each(kPidR, StepKind::kLocalChunk, shard_pids_) &&        // 4 R -> S(b)
                    to_each(kPidP, StepKind::kReduceScatter, shard_pids_) &&     // 5 P -> S(b)
                    to_each(kPidR, StepKind::kLocalPartition, partial_pids_) &&  // 6 R -> P(op)
                    removals(kPidSS, {}) &&                                      // 7 _S -> R
                    to_each(kPidR, StepKind::kLocalChunk, strided_pids_) &&      // 8 R -> _S
                    removals(kPidSS, shard_pids_) &&                             // 9 _S(a) -> S(b)
                    removals(kAnyShard, strided_pids_) &&                        // 10 -> _S(b)
                    to_each(kPidP, StepKind::kReduceScatter, strided_pids_);     // 11 P -> _S
  if (!done) return;
  if (!flattened_moves_) return;
  // 12 flattened collectives.
  for (const FlatMatch& match : mesh_->flat_matches()) {
    const std::uint32_t d = match.dims;
    const std::int64_t n = mesh_->groups(d, match.flattened).size;
    std::array<int, kMaxSearchDims> members{};
    int count = 0;
    for (int m = 0; m < ndim_; ++m) {
      if ((d >> m) & 1U) members[static_cast<std::size_t>(count++)] = m;
    }
    const std::uint8_t p0 = pid(members[0]);
    auto flat = [&](StepKind kind, const Placement& src, const Placement& dst, std::int64_t scale) {
      mv = Move{kind, d, match.flattened, src, dst, scale, -1, 0, key_};
    };
    // Reductions: every member Partial, one op or a mix of sum and avg
    // (docs/reference/placements.md §4.2).
    bool partial = true, same = true, sum_avg = true, any_avg = false;
    std::int64_t avg_scale = 1;
    for (int i = 0; i < count; ++i) {
      const std::uint8_t p = pid(members[static_cast<std::size_t>(i)]);
      partial = partial && kind_[p] == kPidP;
      if (!partial) break;
      same = same && p == p0;
      sum_avg = sum_avg && (table_[p].reduce_op() == ReduceOp::kSum ||
                            table_[p].reduce_op() == ReduceOp::kAvg);
      if (table_[p].reduce_op() == ReduceOp::kAvg) {
        any_avg = true;
        avg_scale *= size(members[static_cast<std::size_t>(i)]);
      }
    }
    if (partial && (same || sum_avg)) {
      // One op (P(avg) included: ncclAvg over the flattened group) keeps it; sum and avg mixed
      // run as a sum divided by avg_scale (merge_pass.h).
      if (same) avg_scale = 1;
      const Placement src = any_avg && !same ? Placement::partial(ReduceOp::kSum) : table_[p0];
      flat(StepKind::kAllReduce, src, replicate, avg_scale);
      for (int i = 0; i < count; ++i) set(mv.next, members[static_cast<std::size_t>(i)], 0, 0);
      if (!v.visit(mv)) return;
      for (std::int32_t b = 0; b < rank; ++b) {
        int len = chain_of_dim(b);
        if (!divides_all(chain(b, dims.data(), pids.data(), len), n)) continue;
        const std::uint8_t np = shard_pids_[static_cast<std::size_t>(b)];
        flat(StepKind::kReduceScatter, src, table_[np], avg_scale);
        int pos = len;
        for (int i = 0; i < count; ++i) {
          const int m = members[static_cast<std::size_t>(i)];
          if (size(m) > 1) {
            dims[static_cast<std::size_t>(len)] = static_cast<std::uint8_t>(m);
            pids[static_cast<std::size_t>(len++)] = np;
          }
          set(mv.next, m, np, size(m) > 1 ? pos++ : 0);
        }
        mv.dst_dim = b;
        mv.dst_after = chain_max(b, dims.data(), pids.data(), len);
        if (!v.visit(mv)) return;
      }
    }
    // Gathers: every member S(a); the members of size > 1 are a's innermost splits, ascending.
    if (kind_[p0] != kPidS) continue;
    bool gather = true;
    int real = 0;
    for (int i = 0; i < count && gather; ++i) {
      gather = pid(members[static_cast<std::size_t>(i)]) == p0;
      real += size(members[static_cast<std::size_t>(i)]) > 1 ? 1 : 0;
    }
    if (!gather) continue;
    const std::int32_t a = tdim_[p0];
    const int len = chain_of_dim(a);
    if (real > len) continue;
    int j = len - real;
    for (int i = 0; i < count && gather; ++i) {
      const int m = members[static_cast<std::size_t>(i)];
      if (size(m) > 1) gather = dims[static_cast<std::size_t>(j++)] == m;
    }
    if (!gather || !divides_all(chain(a, dims.data(), pids.data(), len - real), n)) continue;
    flat(StepKind::kAllGather, table_[p0], replicate, 1);
    for (int i = 0; i < count; ++i) set(mv.next, members[static_cast<std::size_t>(i)], 0, 0);
    if (!v.visit(mv)) return;
  }
}

}  // namespace dtplan::redist
