// Every scenario under scenarios/ (format: scenarios/README.md) runs through the CLI and keeps its
// expected outcomes.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::json;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

Json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

// Runs every run of `scenario`; returns the number of expectations checked.
int run_scenario(const Json& scenario) {
  int checked = 0;
  for (const Json& run : scenario.at("runs")) {
    INFO(scenario.at("name").get<std::string>() << ": " << run.at("name").get<std::string>());
    std::string args;
    for (const Json& a : run.at("args")) args += shell_quote(a.get<std::string>()) + " ";
    const CliResult r = run_cli(args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.err.empty());
    const Json out = Json::parse(r.out);
    for (const auto& [pointer, want] : run.at("expect").items()) {
      INFO(pointer);
      const Json::json_pointer p(pointer);
      REQUIRE(out.contains(p));
      CHECK(out.at(p) == want);
      ++checked;
    }
    if (run.contains("expect_contains")) {
      for (const auto& [pointer, parts] : run.at("expect_contains").items()) {
        const Json::json_pointer p(pointer);
        REQUIRE(out.contains(p));
        const std::string text = out.at(p).get<std::string>();
        for (const Json& part : parts) {
          INFO(pointer << " contains " << part);
          CHECK(text.find(part.get<std::string>()) != std::string::npos);
          ++checked;
        }
      }
    }
  }
  return checked;
}

TEST_CASE("scenarios: every scenario keeps its expected outcomes") {
  int scenarios = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(source_path("scenarios/multi-run"))) {
    if (entry.path().extension() != ".json") continue;
    const Json scenario = read_json(entry.path());
    CHECK(run_scenario(scenario) > 0);
    ++scenarios;
  }
  CHECK(scenarios >= 1);
}

TEST_CASE("scenarios: the determinism scenario pins both outcomes") {
  const Json s = read_json(source_path("scenarios/multi-run/determinism-ddp8-fsdp5.json"));
  bool differ = false, equal = false;
  for (const Json& run : s.at("runs")) {
    const Json& e = run.at("expect");
    if (!e.contains("/verify/replicas_bitwise_equal")) continue;
    const bool v = e.at("/verify/replicas_bitwise_equal").get<bool>();
    differ = differ || !v;
    equal = equal || v;
  }
  CHECK(differ);
  CHECK(equal);
}

}  // namespace
}  // namespace dtplan::testing
