// Runs every scenario of scenarios/ through the CLI and checks its expected outcomes
// (scenarios/README.md), and tests the checker itself on inline examples.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "core/text_file.h"
#include "support/cli.h"
#include "support/mesh_gen.h"
#include "support/scenario.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::json;

std::vector<std::filesystem::path> scenario_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("scenarios"))) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("scenarios: the checker's operators") {
  const Json doc = Json::parse(R"({"a": {"b": [1, 2, 3]}, "s": "all_gather on A_C",
      "rows": [{"t": 1.5, "ok": true}, {"t": 2, "ok": true}, {"t": 2, "ok": false}]})");
  const auto check = [&](const std::string& e) { return check_expectation(doc, Json::parse(e)); };
  CHECK(check(R"({"path": "/a/b/1", "equals": 2})") == "");
  CHECK(check(R"({"path": "/a/b/1", "equals": 2.0})") == "");
  CHECK(check(R"({"path": "/a/b/1", "equals": 3})") == "/a/b/1: 2, expected 3");
  CHECK(check(R"({"path": "/a/b", "size": 3})") == "");
  CHECK(check(R"({"path": "/a/b", "size": 2})") == "/a/b: size 3, expected 2");
  CHECK(check(R"({"path": "/a/b/0", "min": 1})") == "");
  CHECK(check(R"({"path": "/a/b/0", "max": 0.5})") == "/a/b/0: 1, expected <= 0.5");
  CHECK(check(R"({"path": "/s", "contains": "A_C"})") == "");
  CHECK(check(R"({"path": "/s", "contains": "B"})") ==
        "/s: \"all_gather on A_C\" does not contain \"B\"");
  CHECK(check(R"({"path": "/a/b", "contains": 3})") == "");
  CHECK(check(R"({"path": "/a/c", "exists": false})") == "");
  CHECK(check(R"({"path": "/a/b", "exists": false})") == "/a/b: exists, expected absent");
  CHECK(check(R"({"path": "/a/c", "equals": 1})") == "/a/c: missing");
  CHECK(check(R"({"path": "/rows/*/t", "ascending": true})") == "");
  CHECK(check(R"({"path": "/rows/*/t", "min": 1.5})") == "");
  CHECK(check(R"({"path": "/rows/*/ok", "equals": true})") == "/rows/*/ok: false, expected true");
  CHECK(check(R"({"path": "/rows/*/ok", "ascending": true})") ==
        "/rows/*/ok: true before false, expected ascending");
  CHECK(check(R"({"path": "/a/b/*", "ascending": true})") == "");
  CHECK(check_expectation(Json::parse("[3, 1]"),
                          Json::parse(R"({"path": "/*", "ascending": true})")) ==
        "/*: 3 before 1, expected ascending");
}

TEST_CASE("scenarios: the parser rejects what it does not know") {
  const std::string base = R"("name": "n", "description": "d", "args": ["mesh"])";
  CHECK(parse_scenario("{" + base + "}", "f.json").ok());
  CHECK(error_of(parse_scenario("{" + base + R"(, "expects": []})", "f.json")) ==
        "f.json: field 'expects': unknown or of the wrong type");
  CHECK(error_of(parse_scenario("{" + base + R"(, "expect": [{"path": "/a", "equal": 1}]})",
                                "f.json")) == "f.json: field 'expect[0]': unknown key equal");
  CHECK(error_of(parse_scenario("{" + base + R"(, "expect": [{"path": "/a", "min": 1, "max": 2}]})",
                                "f.json")) ==
        "f.json: field 'expect[0]': needs exactly one operator");
  CHECK(error_of(parse_scenario(R"({"name": "n", "description": "d"})", "f.json")) ==
        "f.json: field 'args': required (the subcommand first)");
  CHECK(error_of(parse_scenario("[", "f.json")) == "f.json: not a JSON object");
  CHECK(shell_command({"redistribute", "--from", "P(sum),R", "it's"}, true) ==
        "'redistribute' '--from' 'P(sum),R' 'it'\\''s' --json");
}

TEST_CASE("scenarios: every scenario file runs and meets its expectations") {
  const auto files = scenario_files();
  CHECK(files.size() >= 3);
  for (const auto& path : files) {
    const std::string source = "scenarios/" + path.filename().string();
    INFO("scenario " << source);
    const Scenario s =
        ok(parse_scenario(ok(core::read_text_file(path.string(), "scenario")), source));
    CHECK(s.name == path.stem().string());
    const CliResult r = run_cli(shell_command(s.args, s.json));
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == s.exit_code);
    for (const std::string& text : s.stderr_contains) {
      CHECK_MESSAGE(r.err.find(text) != std::string::npos, "stderr lacks: " << text);
    }
    if (!s.expect.empty()) {
      const Json doc = Json::parse(r.out, nullptr, false);
      REQUIRE_MESSAGE(!doc.is_discarded(), "stdout is not JSON: " << r.out.substr(0, 200));
      for (const Json& e : s.expect) {
        const std::string failure = check_expectation(doc, e);
        CHECK_MESSAGE(failure.empty(), failure);
      }
    }
    for (const auto& other : s.same_output) {
      const CliResult o = run_cli(shell_command(other, s.json));
      CHECK(o.exit_code == r.exit_code);
      CHECK_MESSAGE(o.out == r.out, "output differs from: " << shell_command(other, s.json));
    }
  }
}

}  // namespace
}  // namespace dtplan::testing
