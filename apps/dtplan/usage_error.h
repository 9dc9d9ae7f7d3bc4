#pragma once
// Command-line usage errors (a CLI11 ParseError: an unknown or mistyped flag, a missing or
// malformed value, an unexpected argument) in the one-line format of every other error:
//
//   dtplan plan: error: --threads: 'x' is not an integer
//   dtplan mesh: error: --shap: unknown flag; did you mean '--shape'?
//   dtplan cost: error: --collective: required
//
// "dtplan <command>" names the subcommand being parsed ("dtplan" before one is known). Exit 2.

#include <CLI/CLI.hpp>
#include <string>

namespace dtplan::cli {

// "<input>: <reason>" for `error`, raised while parsing into `app` (one line, any control
// characters of the command line escaped).
std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error);

// Prints "dtplan[ <command>]: error: <usage_error_message>" on stderr; returns 2.
int report_usage_error(const CLI::App& app, const CLI::ParseError& error);

}  // namespace dtplan::cli
