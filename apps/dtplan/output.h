#pragma once
// What every subcommand shares for output: JSON on stdout, tables on stdout, errors on stderr with
// the exit code of their kind. Every write to stdout is checked: the first error is kept and
// finish_stdout() reports it when the command ends, as "dtplan <command>: error: stdout: <reason>"
// with exit 1; a reader that closed the pipe early (`| head`) ends the output quietly.

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

// Sets what output needs before anything is written: SIGPIPE and SIGXFSZ are ignored, so that a
// closed pipe and a file-size limit (ulimit -f) come back as errors (EPIPE, EFBIG) that the
// writers check, instead of ending the process.
void prepare_output();

// Flushes what was printed on stdout by other means (CLI11's help) and reports the first error
// stdout had, unless it was a closed pipe. `command` is the subcommand ("" before one was named).
// @return `code`, or exit code 1 when stdout failed and `code` was 0.
int finish_stdout(std::string_view command, int code);

// Adds the `--json` flag every subcommand has, bound to `target` (which must outlive parsing).
void add_json_flag(CLI::App& app, bool& target);

// Adds `--quiet` (no progress line; progress_bar.h, elapsed_line.h) to the long subcommands.
void add_quiet_flag(CLI::App& app, bool& target);

}  // namespace dtplan::cli
