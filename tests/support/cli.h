#pragma once
// Runs the built dtplan executable with arguments and captures its exit code, stdout and stderr.

#include <string>

namespace dtplan::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the executable path and run by /bin/sh from the source directory, so
// relative paths such as configs/meshes/8x8.json work and quoting follows the shell.
CliResult run_cli(const std::string& args);

// Path of a file under the source tree, e.g. source_path("configs/meshes/8x8.json").
std::string source_path(const std::string& relative);

}  // namespace dtplan::testing
