// The malformed-input corpus: every case of tests/data/malformed/cases.tsv (written by generate.py
// there: truncated JSON, wrong types, negative and huge sizes, unknown ops, placements and fields,
// duplicate names and keys, control characters, oversize input, non-dividing shapes, bad flags)
// is fed to the dtplan executable, which must exit with the case's code (2 bad input, 3
// unsupported; never 1, never a crash), name the input in one line on stderr, print nothing on
// stdout, and write nothing to its --out path.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/strings.h"
#include "support/cli.h"

namespace dtplan::testing {
namespace {

struct Case {
  int line = 0;
  int code = 0;
  std::vector<std::string> needles;
  std::string args;
};

std::vector<Case> read_cases() {
  std::ifstream in(source_path("tests/data/malformed/cases.tsv"));
  std::vector<Case> out;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string_view> fields = core::split(text, '\t');
    REQUIRE(fields.size() == 3);
    Case c;
    c.line = line;
    c.code = std::stoi(std::string(fields[0]));
    for (std::string_view n : core::split(fields[1], '|')) c.needles.emplace_back(n);
    c.args = std::string(fields[2]);
    out.push_back(std::move(c));
  }
  return out;
}

std::string first_word(const std::string& args) { return args.substr(0, args.find(' ')); }

// A case for a subcommand the binary does not have yet (one another branch adds) is skipped,
// unless the case is about the unknown subcommand itself (its needles name it).
bool runnable(const Case& c) {
  std::string command = first_word(c.args);
  if (has_subcommand(command)) return true;
  for (const std::string& n : c.needles) {
    if (n == command) return true;
  }
  return false;
}

std::string out_path(int line) {
  return "/tmp/dtplan_malformed_" + std::to_string(getpid()) + "_" + std::to_string(line) + ".out";
}

std::string with_out(const Case& c) {
  std::string args = c.args;
  std::size_t at = args.find("{OUT}");
  if (at != std::string::npos) args.replace(at, 5, out_path(c.line));
  return args;
}

TEST_CASE("malformed inputs: every case exits 2 or 3 naming the input, writing nothing") {
  std::vector<Case> all = read_cases();
  std::vector<Case> cases;
  for (const Case& c : all) {
    if (runnable(c)) cases.push_back(c);
  }
  MESSAGE(cases.size() << " of " << all.size() << " cases run (others await their subcommand)");
  CHECK(cases.size() >= 200);

  // Two runners: the cases are independent processes.
  std::vector<CliResult> results(cases.size());
  std::mutex next_mutex;
  std::size_t next = 0;
  auto worker = [&] {
    while (true) {
      std::size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(next_mutex);
        if (next == cases.size()) return;
        i = next++;
      }
      results[i] = run_cli(with_out(cases[i]));
    }
  };
  std::thread helper(worker);
  worker();
  helper.join();

  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const CliResult& r = results[i];
    INFO("cases.tsv:" << c.line << ": dtplan " << c.args);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == c.code);
    // One line in the format of every error: "dtplan <command>: error: <input>: <reason>", or
    // "dtplan: error: ..." before a command is known.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK((r.err.starts_with("dtplan " + first_word(c.args) + ": error: ") ||
           r.err.starts_with("dtplan: error: ")));
    for (const std::string& n : c.needles) {
      INFO("must name: " << n);
      CHECK(r.err.find(n) != std::string::npos);
    }
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(out_path(c.line)));
    std::filesystem::remove(out_path(c.line));
  }
}

TEST_CASE("malformed inputs: the corpus covers every kind of fault") {
  std::vector<Case> cases = read_cases();
  std::map<std::string, int> per_command;
  int unsupported = 0;
  for (const Case& c : cases) {
    ++per_command[first_word(c.args)];
    unsupported += c.code == 3;
  }
  CHECK(per_command["mesh"] >= 40);
  CHECK(per_command["redistribute"] >= 40);
  CHECK(per_command["cost"] >= 40);
  CHECK(per_command["calibrate"] >= 10);
  CHECK(unsupported >= 3);
}

}  // namespace
}  // namespace dtplan::testing
