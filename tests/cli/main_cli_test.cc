// The CLI frame (apps/dtplan/main.cc): version, help, mistyped subcommands and flags, usage errors.

#include <doctest/doctest.h>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

TEST_CASE("dtplan: --version and --help") {
  CliResult v = run_cli("--version");
  CHECK(v.exit_code == 0);
  CHECK(v.out == "dtplan 0.1.0\n");
  CliResult h = run_cli("--help");
  CHECK(h.exit_code == 0);
  CHECK(has(h.out, "mesh"));
  CliResult mh = run_cli("mesh --help");
  CHECK(mh.exit_code == 0);
  CHECK(has(mh.out, "Usage: dtplan mesh [OPTIONS]"));
  for (const char* flag : {"--shape", "--names", "--ranks", "--mesh", "--flatten", "--slice",
                           "--unflatten", "--json"}) {
    CHECK(has(mh.out, flag));
  }
}

TEST_CASE("dtplan: mistyped subcommands and flags get suggestions; usage errors exit 2") {
  CliResult typo = run_cli("mseh --shape 2");
  CHECK(typo.exit_code == 2);
  CHECK(has(typo.err, "unknown command 'mseh'. Did you mean 'mesh'?"));
  CliResult unknown = run_cli("zzzzzz");
  CHECK(unknown.exit_code == 2);
  CHECK_FALSE(has(unknown.err, "Did you mean"));
  CliResult flag = run_cli("mesh --shap 2,2");
  CHECK(flag.exit_code == 2);
  CHECK(has(flag.err, "--shap: unknown flag; did you mean '--shape'?"));
  CliResult none = run_cli("");
  CHECK(none.exit_code == 2);
  CHECK(has(none.err, "a command is required"));
  CliResult missing_value = run_cli("mesh --shape");
  CHECK(missing_value.exit_code == 2);
}

}  // namespace
}  // namespace dtplan::testing
