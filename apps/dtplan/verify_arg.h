#pragma once
// Shared by the subcommands that verify plans on the fake process group with real data
// (`redistribute --verify`, `simulate --data`): the value flags and the report's text (its JSON:
// sim::verify_json in sim/step_report_io.h).
//
//   "verify": {"ranks": 40, "wrong_elements": 0, "replicas_bitwise_equal": false,
//              "elements": 40960, "values": "float", "exact": false, "replica_sets": 8,
//              "differing_replica_sets": 8, "max_error": 2.3e-07, "collectives": 2}

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "core/result.h"
#include "output.h"
#include "sim/verify.h"

namespace dtplan::cli {

struct VerifyArgs {
  std::string values = "float";
  std::uint64_t seed = 1;
};

// Adds --values and --seed.
void add_verify_flags(CLI::App& app, VerifyArgs& args);

// The library options from the flags (a bad --values is kBadInput naming the flag).
core::Result<sim::VerifyOptions> verify_options(const VerifyArgs& args);

// "# verify: 40 ranks, 0 of 40960 elements wrong (...), replicas bitwise equal: no (...)\n".
std::string verify_line(const sim::VerifyReport& report);

}  // namespace dtplan::cli
