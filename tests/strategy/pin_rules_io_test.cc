#include "strategy/pin_rules_io.h"

#include <doctest/doctest.h>

#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

const std::vector<std::string> kDpTp = {"dp", "tp"};

core::Result<PinSet> parse(const std::string& text) {
  return parse_pin_rules(text, "--parallelize p.json", kDpTp);
}

// The message of a parse that must fail with kBadInput.
std::string failure(const std::string& text) {
  auto r = parse(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  return r.error().message;
}

}  // namespace

TEST_CASE("parse_pin_rules: list and by-name placements, strategy indices, rule order kept") {
  auto r = parse(R"j({"rules": [
    {"name": "wq", "match": "layers\\.\\d+\\.attention\\.wq\\.weight", "placements": "_S(0,2),S(0)"},
    {"name": "wo", "match": "layers\\.0\\.attention\\.wo\\.weight", "placements": {"tp": "S(1)"}},
    {"name": "emb", "match": "tok_embeddings\\.embedding", "strategy": 3}]})j");
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->source == "--parallelize p.json");
  REQUIRE(r->rules.size() == 3);
  CHECK(r->rules[0] == PinRule{"wq", "layers\\.\\d+\\.attention\\.wq\\.weight",
                               PinKind::kPlacements, pl("_S(0,2),S(0)"), 0});
  // Dims the object leaves out are Replicate.
  CHECK(r->rules[1].placements == pl("R,S(1)"));
  CHECK(r->rules[2].kind == PinKind::kStrategy);
  CHECK(r->rules[2].strategy == 3);
}

TEST_CASE("parse_pin_rules: errors name the file and the rule") {
  const std::string pre = "--parallelize p.json: rule 'w': ";
  auto one = [](const std::string& body) {
    return R"j({"rules": [{"name": "w", "match": "x", )j" + body + "}]}";
  };
  CHECK(failure(one(R"j("placements": {"cp": "S(0)"})j")) ==
        pre + "unknown mesh dim 'cp' (the mesh has dp, tp)");
  CHECK(failure(one(R"j("placements": "S(0),Q")j")).starts_with(pre + "placements: 'Q'"));
  CHECK(failure(one(R"j("placements": "S(0)")j")) ==
        pre + "placements 'S(0)' have 1 entries; the mesh has 2 dims (dp, tp)");
  CHECK(failure(one(R"j("placements": "S(0)[1],S(0)[0]")j")).find("shard-order suffix") !=
        std::string::npos);
  CHECK(failure(one(R"j("placements": "R,R", "strategy": 1)j")) ==
        pre + "give exactly one of 'placements' and 'strategy'");
  CHECK(failure(one(R"j("strategy": -1)j")) ==
        pre + "field 'strategy': expected a strategy index >= 0, got -1");
  CHECK(failure(one(R"j("placements": "R,R", "rank": 1)j"))
            .starts_with(pre + "unknown field 'rank'"));
  CHECK(failure(R"j({"rules": [{"name": "w", "placements": "R,R"}]})j") ==
        pre + "field 'match': expected a non-empty regex string");
  CHECK(failure(R"j({"rules": [{"name": "w", "match": "a", "placements": "R,R"},
                               {"name": "w", "match": "b", "placements": "R,R"}]})j")
            .find("rule 'w' is named twice") != std::string::npos);
  CHECK(failure(R"j({"rules": []})j") ==
        "--parallelize p.json: field 'rules': empty (give at least one rule)");
  CHECK(failure(R"j({"pins": []})j").find("field 'pins'") != std::string::npos);
  CHECK(failure("[1]").starts_with("--parallelize p.json"));
  CHECK(failure("{").starts_with("--parallelize p.json: invalid JSON"));
}

}  // namespace dtplan::strategy::testing
