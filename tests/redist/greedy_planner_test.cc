// The greedy planner: the hand-run plans of docs/reference/placements.md §3.3 and the step counts
// of the docs/reference/placements.md §6.1 cases it plans.

#include "redist/greedy_planner.h"

#include <doctest/doctest.h>

#include "placement/placement_text.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using Sizes = std::vector<std::int64_t>;

std::string greedy(const std::string& src, const std::string& dst, const Sizes& mesh) {
  auto a = placement::parse_placement_list(src, "src").value().placements;
  auto b = placement::parse_placement_list(dst, "dst").value().placements;
  auto steps = plan_greedy(a, b, mesh);
  REQUIRE_MESSAGE(steps.ok(), (steps.ok() ? std::string() : steps.error().message));
  std::string out;
  for (const Transform& t : *steps) out += (out.empty() ? "" : " ") + to_string(t);
  return out;
}

TEST_CASE("greedy: the hand-run plans of 3.3") {
  CHECK(greedy("S(0),S(1)", "S(0),S(0)", {2, 2}) == "1:S(1)->S(0)");
  CHECK(greedy("S(0),S(1)", "S(1),S(0)", {2, 2}) == "1:S(1)->R 0:S(0)->S(1) 1:R->S(0)");
  CHECK(greedy("S(0),S(0)", "S(1),S(1)", {2, 2}) == "1:S(0)->R 0:S(0)->S(1) 1:R->S(1)");
  CHECK(greedy("S(0),S(0)", "R,S(0)", {2, 2}) == "1:S(0)->R 0:S(0)->R 1:R->S(0)");
  CHECK(greedy("P(sum),P(sum),S(0)", "S(0),S(0),S(0)", {2, 2, 2}) ==
        "2:S(0)->R 1:P(sum)->R 0:P(sum)->S(0) 1:R->S(0) 2:R->S(0)");
}

TEST_CASE("greedy: the 6.1 cases") {
  CHECK(greedy("S(0)", "R", {4}) == "0:S(0)->R");
  CHECK(greedy("R", "R", {4}).empty());
  CHECK(greedy("P(sum)", "P(sum)", {4}).empty());
  CHECK(greedy("R", "S(1)", {4}) == "0:R->S(1)");
  CHECK(greedy("P(sum)", "R", {4}) == "0:P(sum)->R");
  CHECK(greedy("P(sum)", "S(0)", {4}) == "0:P(sum)->S(0)");
  CHECK(greedy("R,R", "P(sum),P(sum)", {2, 2}) == "0:R->P(sum) 1:R->P(sum)");
  CHECK(greedy("S(0)", "S(1)", {4}) == "0:S(0)->S(1)");
  CHECK(greedy("S(0),S(2)", "S(1),S(0)", {2, 2}) == "1:S(2)->R 0:S(0)->S(1) 1:R->S(0)");
  CHECK(greedy("S(1),S(1)", "S(1),S(2)", {2, 2}) == "1:S(1)->S(2)");
  // (4,1): the size-1 dim's steps are planned (and skipped when run, so 0 comms).
  CHECK(greedy("S(0),P(sum)", "S(0),S(1)", {4, 1}) == "1:P(sum)->S(1)");
  CHECK(greedy("S(0),S(1)", "S(0),R", {4, 1}) == "1:S(1)->R");
}

TEST_CASE("greedy: unsupported pairs name the mesh dim and both placements") {
  auto a = placement::parse_placement_list("S(0),S(1)", "src").value().placements;
  auto b = placement::parse_placement_list("R,P(sum)", "dst").value().placements;
  auto r = plan_greedy(a, b, Sizes{2, 2});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kUnsupported);
  CHECK(r.error().message.find("mesh dim 1") != std::string::npos);
  CHECK(r.error().message.find("Shard(dim=1) to Partial(sum)") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::redist
