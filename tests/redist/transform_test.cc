// Step kinds and the comm-type key of docs/reference/placements.md §3.1 (case 57 of §6.5), and
// which single-dim transitions are supported (docs/reference/placements.md §2 rows 7-9).

#include "redist/transform.h"

#include <doctest/doctest.h>

#include "placement/placement_text.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using placement::Placement;
using placement::ReduceOp;

Placement p(const char* text) { return placement::parse_placement(text, "test").value(); }

TEST_CASE("comm-type keys (6.5 case 57)") {
  CHECK(comm_type_key(p("P(sum)"), p("R")) == StepKind::kAllReduce);
  CHECK(comm_type_key(p("P(max)"), p("R")) == StepKind::kAllReduce);
  CHECK(comm_type_key(p("P(sum)"), p("S(0)")) == StepKind::kReduceScatter);
  CHECK(comm_type_key(p("S(0)"), p("R")) == StepKind::kAllGather);
  CHECK(comm_type_key(p("S(0)"), p("S(1)")) == StepKind::kAllToAll);
  CHECK(comm_type_key(p("R"), p("S(0)")) == std::nullopt);
  CHECK(comm_type_key(p("R"), p("P(sum)")) == std::nullopt);
  // The newest key counts _StridedShard as shard-like.
  CHECK(comm_type_key(p("_S(0,2)"), p("R")) == StepKind::kAllGather);
  CHECK(comm_type_key(p("_S(0,2)"), p("S(1)")) == StepKind::kAllToAll);
  CHECK(comm_type_key(p("P(avg)"), p("_S(1,2)")) == StepKind::kReduceScatter);
}

TEST_CASE("transition kinds over every pair of placements") {
  const std::vector<Placement> all = {p("R"),      p("P(sum)"),  p("P(avg)"),
                                      p("P(max)"), p("P(min)"),  p("S(0)"),
                                      p("S(1)"),   p("_S(0,2)"), p("_S(1,3)")};
  for (const Placement& a : all) {
    for (const Placement& b : all) {
      auto k = transition_kind(a, b);
      INFO(placement::to_string(a) << " -> " << placement::to_string(b));
      if (a == b) {
        CHECK(k.error().kind == core::ErrorKind::kBadInput);
      } else if (b.is_partial() && !a.is_replicate()) {
        REQUIRE_FALSE(k.ok());
        CHECK(k.error().kind == core::ErrorKind::kUnsupported);
        CHECK(k.error().message.find(placement::to_long_string(a)) != std::string::npos);
        CHECK(k.error().message.find(placement::to_long_string(b)) != std::string::npos);
      } else if (auto key = comm_type_key(a, b)) {
        CHECK(k.value() == *key);
        CHECK(collective_of(*key).has_value());
      } else {
        CHECK(k.value() == (b.is_partial() ? StepKind::kLocalPartition : StepKind::kLocalChunk));
        CHECK_FALSE(collective_of(*k).has_value());
      }
    }
  }
}

TEST_CASE("step kind names round-trip") {
  for (int i = 0; i < kNumStepKinds; ++i) {
    const auto k = static_cast<StepKind>(i);
    CHECK(parse_step_kind(step_kind_name(k), "x").value() == k);
  }
  CHECK(step_kind_name(StepKind::kLocalPartition) == "local_partition");
  CHECK_FALSE(parse_step_kind("allreduce", "x").ok());
  CHECK(to_string(testing::steps_of("0,2:P(sum)->R@A_C/2")[0]) == "0,2:P(sum)->R@A_C/2");
}

}  // namespace
}  // namespace dtplan::redist
