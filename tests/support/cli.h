#pragma once
// Runs the built dtplan executable with arguments and captures its exit code, stdout and stderr.

#include <string>
#include <vector>

namespace dtplan::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the executable path and run by /bin/sh from the source directory, so
// relative paths such as configs/meshes/8x8.json work and quoting follows the shell.
CliResult run_cli(const std::string& args);

// Runs `sh -c script` from the source directory with $DTPLAN set to the executable's path, for
// command lines that redirect dtplan's own streams or set limits first
// (`ulimit -f 1; exec "$DTPLAN" mesh ... > /dev/full`); the script's exit code, stdout and stderr.
CliResult run_script(const std::string& script);

// The stdout of `dtplan <args>`, which must exit 0 with nothing on stderr (checked).
std::string cli_output(const std::string& args);

// The stderr of `dtplan <args>`, which must exit with `code` and print nothing on stdout (checked).
std::string cli_failure(const std::string& args, int code);

// Whether the built binary has subcommand `name` (`dtplan NAME --help` exits 0); cached. Tests of
// subcommands that other branches add use it to wait for them.
bool has_subcommand(const std::string& name);

// The keys of a JSON object's text, in document order.
std::vector<std::string> json_keys(const std::string& object_text);

// Path of a file under the source tree, e.g. source_path("configs/meshes/8x8.json").
std::string source_path(const std::string& relative);

}  // namespace dtplan::testing
