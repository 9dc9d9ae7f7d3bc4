// The progress line of the long subcommands (apps/dtplan/elapsed_line.h, progress_bar.h): drawn
// on stderr only when it is a terminal (here a pseudo-terminal made by util-linux's `script`),
// never in pipes, with --json, with --quiet or under CI; erased before the command's output.

#include <doctest/doctest.h>

#include <string>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

// Runs `dtplan ARGS` with stderr on a pseudo-terminal and stdout to /dev/null, the progress line
// drawn from the start; returns what the terminal showed. `env` is prepended (e.g. "CI=1").
CliResult on_terminal(const std::string& args, const std::string& env = "") {
  return run_script(
      "command -v script >/dev/null || { echo 'no script(1)' >&2; exit 99; }; "
      "env -u CI DTPLAN_PROGRESS_DELAY_S=0 " +
      env + " script -qec \"\\\"$DTPLAN\\\" " + args + " >/dev/null\" /dev/null");
}

const std::string kPlan = "plan --model llama3-tiny --mesh dp=2,tp=2 --solver greedy";

}  // namespace

TEST_CASE("progress: a terminal sees the elapsed line, erased at the end") {
  const CliResult r = on_terminal(kPlan);
  REQUIRE(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.starts_with("\rdtplan plan: 0."));
  CHECK(r.out.find(" s\r") != std::string::npos);
  // The last thing drawn is the erase: spaces over the line, then the cursor back at column 0.
  CHECK(r.out.ends_with(" \r"));
  CHECK(r.out.find('\n') == std::string::npos);
}

TEST_CASE("progress: --quiet, --json and CI draw nothing; neither does a pipe") {
  CHECK(on_terminal(kPlan + " --quiet").out.empty());
  CHECK(on_terminal(kPlan + " --json").out.empty());
  CHECK(on_terminal(kPlan, "CI=1").out.empty());
  const CliResult piped = run_script("DTPLAN_PROGRESS_DELAY_S=0 \"$DTPLAN\" " + kPlan);
  CHECK(piped.exit_code == 0);
  CHECK(piped.err.empty());
}

TEST_CASE("progress: an error ends the line before its one-line message") {
  const CliResult r = on_terminal(kPlan + " --memory-limit 1KiB");  // exit 3 after the solve
  INFO(r.out);
  const auto line = r.out.find("\rdtplan plan: 0.");
  const auto erased = r.out.find(" \rdtplan plan: error: memory limit 1024 B");
  REQUIRE(line != std::string::npos);
  REQUIRE(erased != std::string::npos);
  CHECK(line < erased);
}

}  // namespace dtplan::testing
