#include "redist/split_chain.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "placement/chunk.h"

namespace dtplan::redist {

namespace {

// Appends the distinct lengths `how` leaves of `length` over coordinates 0..n-1. A torch.chunk of
// one piece is constant on [0, k), then one partial piece at k, then empty pieces; a StridedShard
// sums such step functions for its (at most two distinct) piece sizes. So the value is constant
// between the break points k, k+1 of each piece size, and the representatives below meet every
// distinct value.
void outcomes(const placement::Placement& how, std::int64_t length, std::int64_t n,
              std::vector<std::int64_t>& out) {
  std::int64_t reps[6] = {0, n - 1, 0, 0, 0, 0};
  int count = 2;
  auto add_breaks = [&](std::int64_t piece) {
    if (piece == 0) return;
    const std::int64_t k = piece / placement::chunk_size(piece, n);  // first short coordinate
    if (k < n) reps[count++] = k;
    if (k + 1 < n) reps[count++] = k + 1;
  };
  if (how.is_shard()) {
    add_breaks(length);
  } else if (length > 0) {
    const std::int64_t a = placement::chunk_size(length, how.split_factor());
    add_breaks(a);
    add_breaks(length - (length / a) * a);
  }
  for (int i = 0; i < count; ++i) out.push_back(placement::split_length(how, length, n, reps[i]));
}

}  // namespace

ChainStats chain_stats(std::int64_t length, std::span<const Split> splits) {
  // Plain torch.chunk chains have a closed form for the max (nested ceilings compose), but the
  // gcd needs the set, so both paths share the set walk.
  thread_local std::vector<std::int64_t> lengths, next;  // no allocation once grown
  lengths.assign(1, length);
  for (const Split& s : splits) {
    next.clear();
    for (std::int64_t l : lengths) outcomes(s.how, l, s.n, next);
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    lengths.swap(next);
  }
  ChainStats out;
  for (std::int64_t l : lengths) {
    out.max_length = std::max(out.max_length, l);
    out.gcd = std::gcd(out.gcd, l);
  }
  return out;
}

std::int64_t chain_max_length(std::int64_t length, std::span<const Split> splits) {
  std::int64_t out = length;
  for (const Split& s : splits) {
    if (!s.how.is_shard()) return chain_stats(length, splits).max_length;
    out = placement::chunk_size(out, s.n);
  }
  return out;
}

}  // namespace dtplan::redist
