// dtplan explain on plans of llama3-tiny (1 layer) on a 1-D mesh of 4: the chosen strategy has
// delta 0, no feasible alternative of an optimal plan is cheaper, the rows are sorted, the
// objective is the plan's; a greedy plan explains too; an unknown op, a missing flag and a bad
// plan file are exit 2 with one line.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"
#include "support/temp_dir.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::json;

const std::string kOp = "layers.0.attention.wq.einsum";

// The plan files, written once for every test of this file.
struct Plans {
  TempDir dir{"explain_cli"};
  std::string exact = dir.at("exact.json");
  std::string greedy = dir.at("greedy.json");
  Plans() {
    const std::string base =
        "plan --model configs/models/llama3-tiny.json --mesh dp=4 --layers 1 --json --out ";
    cli_output(base + exact);
    cli_output(base + greedy + " --solver greedy");
  }
};

const Plans& plans() {
  static const Plans p;
  return p;
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

// The checks every explanation passes: the chosen row has delta 0, the rows are sorted by delta
// (nulls, the forbidden ones, last), then by index; the objective is the plan's.
void check_explanation(const Json& j) {
  REQUIRE(j["alternatives"].is_array());
  CHECK(j["alternatives"].size() == j["op"]["options"].get<std::size_t>());
  CHECK(j["objective_us"].get<double>() ==
        doctest::Approx(j["plan_objective_us"].get<double>()).epsilon(1e-9));
  int chosen = 0;
  double previous = -INFINITY;
  int previous_index = -1;
  for (const Json& a : j["alternatives"]) {
    // Sorted by whole picoseconds (deltas that print alike may differ in rounding).
    const double delta =
        a["delta_us"].is_null() ? INFINITY : std::round(a["delta_us"].get<double>() * 1e6);
    if (a["chosen"].get<bool>()) {
      ++chosen;
      CHECK(a["delta_us"].get<double>() == 0);
      CHECK(a["strategy_index"] == j["op"]["strategy_index"]);
      CHECK(a["strategy"] == j["op"]["strategy"]);
      CHECK(a["feasible"] == true);
    }
    CHECK((previous < delta || (previous == delta && previous_index < a["strategy_index"])));
    previous = delta;
    previous_index = a["strategy_index"];
  }
  CHECK(chosen == 1);
}

}  // namespace

TEST_CASE("dtplan explain: no alternative beats an optimal plan's choice") {
  const Json j =
      Json::parse(cli_output("explain --plan " + plans().exact + " --op " + kOp + " --json"));
  CHECK(j["optimal"] == true);
  CHECK(j["op"]["name"] == kOp);
  CHECK(j["op"]["kind"] == "einsum");
  CHECK(j["alternatives"].size() > 1);
  check_explanation(j);
  for (const Json& a : j["alternatives"]) {
    if (a["feasible"].get<bool>() && !a["delta_us"].is_null()) {
      CHECK(a["delta_us"].get<double>() >= -1e-6);
    }
  }
  // A parameter (its gradient follows it): replicated, it breaks the default budget (every
  // parameter at its smallest shard), which is marked and not a saving.
  const Json w = Json::parse(
      cli_output("explain --plan " + plans().exact + " --op layers.0.attention.wq.weight --json"));
  check_explanation(w);
  bool over_budget = false;
  for (const Json& a : w["alternatives"]) {
    if (a["strategy"].get<std::string>().starts_with("R")) {
      CHECK(a["feasible"] == false);
      CHECK(a["infeasible"].get<std::string>().starts_with("memory_high: "));
      over_budget = true;
    }
  }
  CHECK(over_budget);
}

TEST_CASE("dtplan explain: a greedy plan's op, and the text view") {
  const Json j =
      Json::parse(cli_output("explain --plan " + plans().greedy + " --op " + kOp + " --json"));
  CHECK(j["optimal"] == false);
  check_explanation(j);
  const std::string text = cli_output("explain --plan " + plans().exact + " --op " + kOp);
  CHECK(text.starts_with("# dtplan explain: " + kOp +
                         " (einsum, forward, layer 0) of "
                         "llama3-tiny\n# chosen: strategy "));
  CHECK(has(text, "# every strategy of the op, the rest of the plan fixed"));
  CHECK(has(text, "  chosen\n"));
  CHECK(cli_output("explain --plan " + plans().exact + " --op " + kOp) == text);  // deterministic
}

TEST_CASE("dtplan explain: an unknown op, missing flags and bad plans are exit 2") {
  const std::string err =
      cli_failure("explain --plan " + plans().exact + " --op layers.0.attention.wq.einsun", 2);
  // The closest name first (one edit away), then two more, on one line.
  CHECK(
      err.starts_with("dtplan explain: error: --op 'layers.0.attention.wq.einsun': no op of "
                      "that name in " +
                      plans().exact + "; closest: layers.0.attention.wq.einsum, "));
  CHECK(std::count(err.begin(), err.end(), ',') == 2);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK(has(cli_failure("explain --op " + kOp, 2), "--plan: required"));
  CHECK(has(cli_failure("explain --plan " + plans().exact, 2), "--op: required"));
  CHECK(has(cli_failure("explain --plan nowhere.json --op " + kOp, 2), "nowhere.json"));
  // A model config is not a plan.
  CHECK(has(cli_failure("explain --plan configs/models/llama3-tiny.json --op " + kOp, 2),
            "configs/models/llama3-tiny.json"));
  // A model the plan was not made from.
  CHECK(has(cli_failure("explain --plan " + plans().exact + " --model nosuch --op " + kOp, 2),
            "--model: no model 'nosuch'"));
}

}  // namespace dtplan::testing
