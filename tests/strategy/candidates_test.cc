#include "strategy/candidates.h"

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using placement::Placement;

std::vector<DimRow> mm_rows() {
  const Placement R = Placement::replicate(), P = Placement::partial();
  const Placement S0 = Placement::shard(0), S1 = Placement::shard(1);
  return {{{R}, {R, R}}, {{S0}, {S0, R}}, {{S1}, {R, S1}}, {{P}, {S1, S0}}};
}

TEST_CASE("expand_rows: itertools.product order, mesh dim 0 slowest") {
  auto c = expand_rows(mm_rows(), 2, "mm");
  REQUIRE(c.ok());
  REQUIRE(c->size() == 16);
  // Index 5 = 1 * 4 + 1: M on both mesh dims.
  CHECK((*c)[5].outputs == std::vector<Placements>{testing::pl("S(0),S(0)")});
  CHECK((*c)[5].inputs == testing::pls({"S(0),S(0)", "R,R"}));
  // Index 7 = 1 * 4 + 3: M on mesh dim 0, K on mesh dim 1.
  CHECK((*c)[7].outputs == std::vector<Placements>{testing::pl("S(0),P(sum)")});
  CHECK((*c)[7].inputs == testing::pls({"S(0),S(1)", "R,S(0)"}));
  for (const Candidate& cand : *c) {
    CHECK(cand.source == -1);
    CHECK(cand.masked_partial == 0U);
  }
  // Zero mesh dims: one candidate of empty lists; no rows: none.
  CHECK(expand_rows(mm_rows(), 0, "mm")->size() == 1);
  CHECK(expand_rows({}, 2, "mm")->empty());
}

TEST_CASE("expand_rows: masked rows set their mesh dim's bit") {
  std::vector<DimRow> rows = {{{Placement::replicate()}, {}}, {{Placement::partial()}, {}, true}};
  auto c = expand_rows(rows, 3, "emb");
  REQUIRE(c.ok());
  REQUIRE(c->size() == 8);
  CHECK((*c)[0].masked_partial == 0U);
  CHECK((*c)[1].masked_partial == 4U);  // the last mesh dim varies fastest
  CHECK((*c)[6].masked_partial == 3U);
  CHECK((*c)[7].masked_partial == 7U);
}

TEST_CASE("expand_rows: too many combinations is an error, not a stall") {
  std::vector<DimRow> rows(10, DimRow{{Placement::replicate()}, {}});
  auto c = expand_rows(rows, 6, "add");  // 10^6 > 2^18
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().kind == core::ErrorKind::kUnsupported);
  CHECK(c.error().message ==
        "add: 10 options per mesh dim on 6 mesh dims exceed 262144 strategies");
  CHECK(expand_rows(rows, 5, "add")->size() == 100000);
}

TEST_CASE("uniform_candidate") {
  Candidate c = uniform_candidate(testing::pl("S(0),R"), 2, 1, 3);
  CHECK(c.outputs == testing::pls({"S(0),R", "S(0),R"}));
  CHECK(c.inputs == testing::pls({"S(0),R"}));
  CHECK(c.source == 3);
}

}  // namespace
}  // namespace dtplan::strategy
