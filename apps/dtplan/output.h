#pragma once
// What every subcommand shares for output: JSON on stdout, tables on stdout, errors on stderr with
// the exit code of their kind.

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.h"

namespace CLI {
class App;
}

namespace dtplan::cli {

using Json = nlohmann::ordered_json;

// Prints "dtplan <command>: error: <message>" on stderr, control characters escaped
// (core::escape_controls), and returns the exit code of its kind.
int report(std::string_view command, const core::Error& error);

// Prints one JSON document (2-space indent) and a newline on stdout.
void print_json(const Json& doc);

// Prints text on stdout as is.
void print_text(std::string_view text);

// Adds the `--json` flag every subcommand has, bound to `target` (which must outlive parsing).
void add_json_flag(CLI::App& app, bool& target);

}  // namespace dtplan::cli
