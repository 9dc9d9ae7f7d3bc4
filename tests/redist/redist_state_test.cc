// RedistState: steps change placements and shard orders as the planners do, size-1 mesh dims
// are position-free, and local and logical shapes agree with lib/placement's.

#include "redist/redist_state.h"

#include <doctest/doctest.h>

#include <random>

#include "placement/local_shape.h"
#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using testing::state_of;
using testing::steps_of;
using Sizes = std::vector<std::int64_t>;

RedistState apply(const RedistState& s, const std::string& step, const Sizes& sizes) {
  auto out = apply_transform(s, testing::steps_of(step)[0], sizes);
  REQUIRE_MESSAGE(out.ok(), (out.ok() ? std::string() : out.error().message));
  return *out;
}

std::string apply_error(const RedistState& s, const std::string& step, const Sizes& sizes) {
  auto out = apply_transform(s, testing::steps_of(step)[0], sizes);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().kind == core::ErrorKind::kBadInput);
  return out.error().message;
}

TEST_CASE("steps pop the innermost split and append new ones") {
  const Sizes mesh = {2, 2, 2};
  RedistState s = state_of("S(0),S(0),R");
  CHECK(trace_state(apply(s, "1:S(0)->R", mesh)) == "S(0)RR");
  CHECK(apply_error(s, "0:S(0)->R", mesh).find("innermost") != std::string::npos);
  CHECK(trace_state(apply(s, "2:R->S(0)", mesh)) == "S(0)[0]S(0)[1]S(0)[2]");
  CHECK(trace_state(apply(s, "1:S(0)->S(1)", mesh)) == "S(0)S(1)R");
  CHECK(trace_state(apply(state_of("S(0)[1],S(0)[0],R"), "0:S(0)->R", mesh)) == "RS(0)R");
  // A flattened all_gather pops its dims innermost first.
  CHECK(trace_state(apply(s, "0,1:S(0)->R@A_B", mesh)) == "RRR");
  CHECK(apply_error(state_of("S(0)[1],S(0)[0],R"), "0,1:S(0)->R@A_B", mesh).find("innermost") !=
        std::string::npos);
  // A flattened reduce_scatter appends ascending.
  CHECK(state_text(apply(state_of("P(sum),R,P(sum)"), "0,2:P(sum)->S(1)@A_C", mesh)) ==
        "S(1)[0],R,S(1)[1]");
  // Sum + avg merge: avg_scale is the product of the P(avg) dims' sizes.
  CHECK(trace_state(apply(state_of("P(sum),P(avg),R"), "0,1:P(sum)->R@A_B/2", mesh)) == "RRR");
  CHECK(apply_error(state_of("P(sum),P(avg),R"), "0,1:P(sum)->R@A_B", mesh).find("avg_scale") !=
        std::string::npos);
  CHECK(apply_error(state_of("P(sum),P(avg),R"), "1:P(sum)->R", mesh).find("holds P(avg)") !=
        std::string::npos);
  CHECK(apply_error(s, "0,1:S(0)->R", mesh).find("flattened mesh") != std::string::npos);
  CHECK(apply_error(state_of("S(0),R,R"), "0:S(0)->_S(0,2)", mesh).find("another tensor dim") !=
        std::string::npos);
  CHECK(apply_error(s, "5:R->S(0)", mesh).find("does not exist") != std::string::npos);
}

TEST_CASE("size-1 mesh dims leave from any position and do not count in comparisons") {
  const Sizes mesh = {2, 1, 2};
  const RedistState s = state_of("S(0),S(0),S(0)");
  CHECK(poppable(s, 1, mesh));
  CHECK_FALSE(poppable(s, 0, mesh));
  CHECK(poppable(s, 2, mesh));
  CHECK(trace_state(apply(s, "1:S(0)->R", mesh)) == "S(0)[0]RS(0)[1]");
  CHECK(equivalent(state_of("S(0)[1],S(0)[0],R"), state_of("S(0)[0],S(0)[1],R"), Sizes{2, 1, 2}));
  CHECK_FALSE(
      equivalent(state_of("S(0)[1],S(0)[0],R"), state_of("S(0)[0],S(0)[1],R"), Sizes{2, 2, 2}));
  // With mesh dim 1 of size 1, dim 0 is the innermost real split of S(0)[0],S(0)[1].
  CHECK(poppable(state_of("S(0)[0],S(0)[1],R"), 0, Sizes{2, 1, 2}));
  // A size-1 split first, in the middle or last; a real one missing; another tensor dim.
  const RedistState three = state_of("S(0)[0],S(0)[1],S(0)[2]");
  CHECK(equivalent(three, state_of("S(0)[1],S(0)[0],S(0)[2]"), Sizes{1, 2, 2}));
  CHECK(equivalent(three, state_of("S(0)[0],S(0)[2],S(0)[1]"), Sizes{2, 1, 2}));
  CHECK(equivalent(three, state_of("S(0)[1],S(0)[0],S(0)[2]"), Sizes{2, 1, 2}));
  CHECK_FALSE(equivalent(three, state_of("S(0)[1],S(0)[0],S(0)[2]"), Sizes{2, 2, 1}));
  CHECK(equivalent(three, state_of("S(0)[0],S(0)[2],S(0)[1]"), Sizes{2, 2, 1}));
  CHECK_FALSE(equivalent(three, state_of("S(0)[2],S(0)[0],S(0)[1]"), Sizes{2, 2, 1}));
  CHECK(equivalent(three, state_of("S(0)[2],S(0)[1],S(0)[0]"), Sizes{1, 1, 1}));
  CHECK_FALSE(equivalent(state_of("S(0),S(1)"), state_of("S(0),S(0)"), Sizes{2, 2}));
  CHECK(equivalent(state_of("S(0),S(1)"), state_of("S(0),S(1)"), Sizes{2, 2}));
}

TEST_CASE("local and logical shapes agree with lib/placement on random specs") {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400; ++i) {
    const testing::MeshAndSpec ms = testing::random_spec(rng);
    const RedistState s = redist::state_of(ms.spec);
    const auto stats = dim_stats(ms.spec.shape(), s, ms.mesh_sizes);
    std::vector<std::int64_t> max(ms.spec.tensor_rank(), 0);
    testing::for_each_coord(ms.mesh_sizes, [&](std::span<const std::int64_t> coord) {
      const auto local = local_shape(ms.spec.shape(), s, ms.mesh_sizes, coord);
      CHECK(local == placement::local_shape(ms.spec, ms.mesh_sizes, coord).value());
      for (std::size_t t = 0; t < local.size(); ++t) max[t] = std::max(max[t], local[t]);
      for (std::size_t m = 0; m < ms.mesh_sizes.size(); ++m) {
        Transform t{StepKind::kAllReduce, {static_cast<std::int32_t>(m)}, {}, {}, {}, 1};
        if (ms.mesh_sizes[m] == 1) continue;  // logical_shape skips size-1 stops
        CHECK(logical_shape(ms.spec.shape(), s, t, ms.mesh_sizes, coord) ==
              placement::logical_shape(ms.spec, ms.mesh_sizes, coord, m).value());
      }
    });
    for (std::size_t t = 0; t < max.size(); ++t) CHECK(stats[t].max_length == max[t]);
  }
}

}  // namespace
}  // namespace dtplan::redist
