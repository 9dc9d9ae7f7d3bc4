#pragma once
// Scenarios (scenarios/*.json, format in scenarios/README.md): a dtplan command line and the
// outcomes expected of it, checked by tests/scenarios/scenarios_test.cc. This is the parser and
// the checker; running the command is run_cli's job.
//
//   {"name": "x", "description": "...", "args": ["redistribute", "--mesh", "2,2,2", ...],
//    "expect": [{"path": "/comm_counts/all_reduce", "equals": 1}]}

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace dtplan::testing {

struct Scenario {
  std::string name;
  std::string description;
  std::vector<std::string> args;  // after `dtplan`
  bool json = true;               // the runner appends --json
  int exit_code = 0;
  std::vector<nlohmann::json> expect;  // each {"path", op: value}
  std::vector<std::string> stderr_contains;
  std::vector<std::vector<std::string>> same_output;  // commands whose stdout must be identical
};

// Parses a scenario document; unknown keys, a missing name/description/args, or a malformed
// expectation are errors naming `source` and the field.
core::Result<Scenario> parse_scenario(const std::string& text, const std::string& source);

// The shell command line of `args` (each argument single-quoted), plus " --json" when json.
std::string shell_command(const std::vector<std::string>& args, bool json);

// Checks one expectation against a command's JSON output. Returns "" when it holds, else what
// failed ("/steps: size 2, expected 1").
std::string check_expectation(const nlohmann::json& doc, const nlohmann::json& expectation);

// The expectation operators, in the order the README lists them.
const std::vector<std::string>& expectation_ops();

}  // namespace dtplan::testing
