#include "redist/greedy_planner.h"

namespace dtplan::redist {

using placement::Placement;

namespace {

core::Status emit(std::vector<Transform>& out, std::size_t i, const Placement& from,
                  const Placement& to) {
  auto kind = transition_kind(from, to);
  if (!kind.ok()) return kind.error().with_context("mesh dim " + std::to_string(i));
  out.push_back({*kind, {static_cast<std::int32_t>(i)}, from, to, {}, 1});
  return {};
}

// The mesh dims before `i` that hold Shard(d), ascending.
std::vector<std::size_t> sharding_before(std::span<const Placement> placements, std::size_t i,
                                         std::int32_t d) {
  std::vector<std::size_t> out;
  for (std::size_t j = 0; j < i; ++j) {
    if (placements[j] == Placement::shard(d)) out.push_back(j);
  }
  return out;
}

}  // namespace

core::Result<std::vector<Transform>> plan_greedy(std::span<const Placement> src,
                                                 std::span<const Placement> dst,
                                                 std::span<const std::int64_t> sizes) {
  std::vector<Transform> out;
  const std::size_t m = src.size();
  if (m == 1) {
    if (src[0] != dst[0]) DTPLAN_CHECK(emit(out, 0, src[0], dst[0]));
    return out;
  }
  std::vector<Placement> cur(src.begin(), src.end());
  std::int64_t shards = 1;
  for (std::size_t i = 0; i < m; ++i) {
    if (src[i].is_shard()) shards *= sizes[i];
  }
  if (shards > 1) {
    for (std::size_t i = m; i-- > 0;) {
      Placement target = dst[i];
      if (target.is_shard() &&
          sharding_before(cur, i, target.dim()) != sharding_before(dst, i, target.dim())) {
        target = Placement::replicate();
      }
      if (cur[i] != target) {
        DTPLAN_CHECK(emit(out, i, cur[i], target));
        cur[i] = target;
      }
    }
  }
  for (std::size_t i = 0; i < m; ++i) {
    if (cur[i] != dst[i]) {
      DTPLAN_CHECK(emit(out, i, cur[i], dst[i]));
      cur[i] = dst[i];
    }
  }
  return out;
}

}  // namespace dtplan::redist
