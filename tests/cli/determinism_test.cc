// Determinism: every subcommand, run twice on the shipped configs (and scenarios, once they are
// shipped), prints the same bytes on stdout and writes the same bytes to its output files.
//
// One row of kRuns per command line. Placeholders expand to every shipped file of a kind, so a
// row covers all of them: {mesh} configs/meshes/*.json, {hardware} configs/hardware/*.json,
// {model} configs/models/*.json, {scenario} scenarios/*.json, {nccl_log}
// tests/data/nccl-tests/*.log; {out} is a fresh output path whose bytes are compared too, and
// {plan} a plan file written once by `dtplan plan`. A row whose subcommand the binary does not
// have yet is skipped, so rows for commands that other branches add can wait here: adding a
// command is one line. Keys in `masked` (wall-clock measurements such as a solver's time_s) are
// blanked in JSON output before comparing.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

namespace fs = std::filesystem;

struct Run {
  const char* args;
  std::vector<std::string> masked = {};
};

const Run kRuns[] = {
    {"mesh --mesh {mesh}"},
    {"mesh --mesh {mesh} --json"},
    {"mesh --shape 2,2,2 --names dp,cp,tp --flatten dp,tp --slice dp,tp --json"},
    {"mesh --shape 2,4 --names dp,tp --unflatten tp=2,2:a,b"},
    {"mesh --shape 2,2 --ranks 3,1,2,0 --json"},
    {"redistribute --mesh configs/meshes/2x2x2.json --shape 16,16,16 --from 'P(sum),R,P(sum)' "
     "--to R,R,R --json"},
    {"redistribute --mesh configs/meshes/2x2x2.json --shape 16,16,16 --from 'S(0),S(1),P(sum)' "
     "--to 'S(1),S(0),R' --planner min-cost"},
    {"redistribute --mesh configs/meshes/8x8.json --shape 1024,1024 --dtype bf16 "
     "--from 'S(0)[1],S(0)[0]' --to 'R,S(1)' --json"},
    {"redistribute --mesh configs/meshes/8x8x8.json --shape 4096,4096 --from 'P(avg),S(0),R' "
     "--to 'R,R,S(1)' --planner min-cost --json"},
    {"redistribute --mesh configs/meshes/64.json --shape 100,7 --from 'P(sum)' --to 'S(0)' "
     "--model dtensor --json"},
    {"redistribute --mesh configs/meshes/2x4x8x8.json --shape 64,64,64 "
     "--from 'S(0),P(sum),R,S(2)' --to 'R,S(1),S(0),R' --hardware {hardware}"},
    {"cost --collective all_reduce --ranks 64 --hardware {hardware} --json"},
    {"cost --collective all_gather --group 0,8,16,24,1,9 --gpus-per-node 8 --sizes 1KiB:1GiB:x8"},
    {"cost --collective all_to_all --ranks 16 --model alpha-beta --sizes 1:1MiB:x4 --json"},
    {"calibrate --nccl-tests {nccl_log} --out {out} --json"},
    {"calibrate --nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log "
     "tests/data/nccl-tests/all_gather_perf_2x8_h100.log --name lab"},
    // Subcommands of other branches (skipped until the binary has them).
    // `plan` and `sweep` print solver wall times in their text and JSON (timing fields beyond
    // time_s), so they are compared through `simulate` of a written plan instead.
    {"simulate --plan {plan} --json"},
    {"compare {plan} {plan} --json"},
};

std::vector<std::string> shipped(const std::string& folder, const std::string& extension) {
  std::vector<std::string> out;
  fs::path dir = source_path(folder);
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == extension) {
      out.push_back(folder + "/" + e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::map<std::string, std::vector<std::string>>& file_sets() {
  static const std::map<std::string, std::vector<std::string>> sets = {
      {"{mesh}", shipped("configs/meshes", ".json")},
      {"{hardware}", shipped("configs/hardware", ".json")},
      {"{model}", shipped("configs/models", ".json")},
      {"{scenario}", shipped("scenarios", ".json")},
      {"{nccl_log}", shipped("tests/data/nccl-tests", ".log")},
  };
  return sets;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

// The command lines of a row: one per file of each placeholder it uses (every combination).
std::vector<std::string> expand(const std::string& args) {
  std::vector<std::string> out = {args};
  for (const auto& [key, files] : file_sets()) {
    if (args.find(key) == std::string::npos) continue;
    std::vector<std::string> next;
    for (const std::string& line : out) {
      for (const std::string& f : files) next.push_back(replace_all(line, key, f));
    }
    out = std::move(next);
  }
  return out;
}

std::string temp_file(const std::string& tag) {
  return "/tmp/dtplan_determinism_" + std::to_string(getpid()) + "_" + tag;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The {plan} file: written once by `dtplan plan` when the binary has it.
const std::string& plan_file() {
  static const std::string path = [] {
    std::string p = temp_file("plan.json");
    CliResult r = run_cli(
        "plan --model tests/data/fx_export_sample.json --mesh "
        "configs/meshes/8x8.json --out " +
        p);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return p;
  }();
  return path;
}

// JSON text with the values of `masked` keys (at any depth) replaced by null; other text as is.
std::string masked_output(const std::string& text, const std::vector<std::string>& masked) {
  if (masked.empty()) return text;
  auto doc = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return text;
  auto blank = [&](auto& self, nlohmann::ordered_json& j) -> void {
    if (j.is_object()) {
      for (auto& [key, value] : j.items()) {
        if (std::find(masked.begin(), masked.end(), key) != masked.end()) {
          value = nullptr;
        } else {
          self(self, value);
        }
      }
    } else if (j.is_array()) {
      for (auto& v : j) self(self, v);
    }
  };
  blank(blank, doc);
  return doc.dump(2);
}

struct Outcome {
  CliResult result;
  std::string out_file;
};

// Both runs write the same {out} path (it may appear in the output), read and removed after each.
Outcome run_once(const std::string& line) {
  std::string out = temp_file("out");
  std::filesystem::remove(out);
  Outcome o{run_cli(replace_all(line, "{out}", out)), {}};
  if (line.find("{out}") != std::string::npos) {
    o.out_file = read_file(out);
    std::filesystem::remove(out);
  }
  return o;
}

TEST_CASE("determinism: every subcommand prints the same bytes twice on the shipped configs") {
  int compared = 0;
  std::map<std::string, int> per_command;
  for (const Run& run : kRuns) {
    std::string args = run.args;
    std::string command = args.substr(0, args.find(' '));
    if (!has_subcommand(command)) continue;
    // {plan} is written by `dtplan plan`: wait for that command too.
    if (args.find("{plan}") != std::string::npos && !has_subcommand("plan")) continue;
    if (args.find("{plan}") != std::string::npos) args = replace_all(args, "{plan}", plan_file());
    for (const std::string& line : expand(args)) {
      INFO("dtplan " << line);
      Outcome a = run_once(line);
      Outcome b = run_once(line);
      INFO("stderr: " << a.result.err);
      REQUIRE(a.result.exit_code == 0);
      CHECK(b.result.exit_code == 0);
      CHECK(masked_output(a.result.out, run.masked) == masked_output(b.result.out, run.masked));
      CHECK(a.result.err == b.result.err);
      CHECK(masked_output(a.out_file, run.masked) == masked_output(b.out_file, run.masked));
      if (line.find("{out}") != std::string::npos) CHECK_FALSE(a.out_file.empty());
      ++compared;
      ++per_command[command];
    }
  }
  MESSAGE(compared << " command lines compared");
  // plan_file() is written at most once per process; this test case is its only user.
  std::filesystem::remove(temp_file("plan.json"));
  // The commands every build has are covered, each on several inputs.
  for (const char* c : {"mesh", "redistribute", "cost", "calibrate"}) {
    CAPTURE(c);
    CHECK(per_command[c] >= 4);
  }
}

TEST_CASE("determinism: placeholders expand to every shipped file") {
  CHECK(expand("mesh --mesh {mesh}").size() == file_sets().at("{mesh}").size());
  CHECK(file_sets().at("{mesh}").size() >= 5);
  CHECK(file_sets().at("{hardware}").size() >= 4);
  CHECK(expand("x {mesh} {hardware}").size() ==
        file_sets().at("{mesh}").size() * file_sets().at("{hardware}").size());
  CHECK(masked_output(R"({"a": {"time_s": 1.5, "b": 2}})", {"time_s"}) ==
        masked_output(R"({"a": {"time_s": 9.0, "b": 2}})", {"time_s"}));
  CHECK(masked_output(R"({"b": 2})", {"time_s"}) != masked_output(R"({"b": 3})", {"time_s"}));
}

}  // namespace
}  // namespace dtplan::testing
