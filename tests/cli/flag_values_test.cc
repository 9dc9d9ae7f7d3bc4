// Every flag of every subcommand, fed values it must refuse: a non-number, an overflow, a negative
// number and a fraction where they are invalid. Each must be exit 2 with exactly one line on
// stderr, "dtplan <command>: error: <flag>: <reason>", and nothing on stdout. Regression: CLI11's
// own conversion errors (`plan --threads x`, `--threads 2147483648`, `--time-limit abc`,
// `--layers 1.5`, `simulate --ranks x`, `--prefetch x`) printed two lines without that prefix, and
// `--seed -5` wrapped around to 2^64-5.
//
// The table below classifies every flag; the flags themselves are read from `dtplan <command>
// --help`, so a flag added without a row here fails the test, and so does a flag whose help says
// INT, UINT or FLOAT with a row that does not check it as a number.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/strings.h"
#include "support/cli.h"

namespace dtplan::testing {
namespace {

// What text a flag takes.
enum class Kind : std::uint8_t {
  kInteger,   // one integer (help: INT)
  kUnsigned,  // one integer in [0, 2^64-1] (help: UINT)
  kNumber,    // one finite number where fractions are valid (help: FLOAT)
  kSize,      // a byte size such as 80GiB, or a size sweep (help: TEXT)
  kIntList,   // comma-separated integers (help: TEXT)
  kText,      // anything else that takes a value: names, files, placements, choices
  kSwitch,    // takes no value
};

bool numeric_scalar(Kind k) {
  return k == Kind::kInteger || k == Kind::kUnsigned || k == Kind::kNumber;
}

struct Row {
  std::string command;
  std::string flag;
  Kind kind;
  std::string base = "";  // the rest of the command line, when not the command's (kCommandBase)
};

// A command line that is valid without the flag under test (its own value, if any, is dropped).
const std::map<std::string, std::string> kCommandBase = {
    {"mesh", "--shape 2,2 --names dp,tp"},
    {"redistribute", "--mesh 2,2 --names A,B --shape 8,8 --from R,R --to R,R"},
    {"plan", "--model configs/models/llama3-tiny.json --mesh configs/meshes/2x2.json"},
    {"simulate", "--plan tests/data/replay/small_model_plan.json"},
    {"compare", "tests/data/replay/small_model_plan.json tests/data/replay/small_model_plan.json"},
    {"explain", "--plan tests/data/replay/small_model_plan.json --op x"},
    {"sweep", "--model configs/models/llama3-tiny.json --world 8"},
    {"replay", "--plan tests/data/replay/small_model_plan.json --backend fake"},
    {"cost", "--collective all_reduce --ranks 8"},
    {"calibrate", "--nccl-tests tests/data/nccl-tests/all_reduce_perf_1x8_h100.log"},
    {"list", "models"},
};

const std::vector<Row> kFlags = {
    {"mesh", "--shape", Kind::kIntList},
    {"mesh", "--names", Kind::kText},
    {"mesh", "--ranks", Kind::kIntList},
    {"mesh", "--mesh", Kind::kText},
    {"mesh", "--flatten", Kind::kText},
    {"mesh", "--slice", Kind::kText},
    {"mesh", "--unflatten", Kind::kText},
    {"mesh", "--json", Kind::kSwitch},

    {"redistribute", "--mesh", Kind::kText},  // a shape or a mesh file
    {"redistribute", "--names", Kind::kText},
    {"redistribute", "--flatten", Kind::kText},
    {"redistribute", "--shape", Kind::kIntList},
    {"redistribute", "--dtype", Kind::kText},
    {"redistribute", "--from", Kind::kText},
    {"redistribute", "--to", Kind::kText},
    {"redistribute", "--planner", Kind::kText},
    {"redistribute", "--no-merge", Kind::kSwitch},
    {"redistribute", "--hardware", Kind::kText},
    {"redistribute", "--gpus-per-node", Kind::kInteger},
    {"redistribute", "--model", Kind::kText},
    {"redistribute", "--verify", Kind::kSwitch},
    {"redistribute", "--values", Kind::kText},
    {"redistribute", "--seed", Kind::kUnsigned},
    {"redistribute", "--json", Kind::kSwitch},

    {"plan", "--model", Kind::kText},
    {"plan", "--mesh", Kind::kText},
    {"plan", "--flatten", Kind::kText},
    {"plan", "--layers", Kind::kInteger},
    {"plan", "--batch", Kind::kInteger},
    {"plan", "--seq-len", Kind::kInteger},
    {"plan", "--checkpoint", Kind::kText},
    {"plan", "--grad-accum", Kind::kInteger},
    {"plan", "--no-grad-sync", Kind::kSwitch},
    {"plan", "--compile", Kind::kSwitch},
    {"plan", "--no-compile", Kind::kSwitch},
    {"plan", "--float8", Kind::kText},
    {"plan", "--solver", Kind::kText},
    {"plan", "--memory-limit", Kind::kSize},
    {"plan", "--hardware", Kind::kText},
    {"plan", "--cost-model", Kind::kText},
    {"plan", "--time-limit", Kind::kNumber},
    {"plan", "--gap", Kind::kNumber},
    {"plan", "--threads", Kind::kInteger},
    {"plan", "--bound-fixing", Kind::kText},
    {"plan", "--out", Kind::kText},
    {"plan", "--parallelize", Kind::kText},
    {"plan", "--compare-optimal", Kind::kSwitch},
    {"plan", "--async-tp", Kind::kSwitch},
    {"plan", "--ops", Kind::kSwitch},
    {"plan", "--all-layers", Kind::kSwitch},
    {"plan", "--json", Kind::kSwitch},
    {"plan", "--quiet", Kind::kSwitch},

    {"simulate", "--plan", Kind::kText},
    {"simulate", "--ranks", Kind::kInteger},
    {"simulate", "--data", Kind::kSwitch},
    {"simulate", "--values", Kind::kText},
    {"simulate", "--seed", Kind::kUnsigned},
    {"simulate", "--trace", Kind::kText},
    {"simulate", "--html", Kind::kText},
    {"simulate", "--all-ranks", Kind::kSwitch},
    {"simulate", "--trace-ranks", Kind::kInteger},
    {"simulate", "--prefetch", Kind::kInteger},
    {"simulate", "--no-contention", Kind::kSwitch},
    {"simulate", "--detail", Kind::kSwitch},
    {"simulate", "--json", Kind::kSwitch},
    {"simulate", "--quiet", Kind::kSwitch},

    {"compare", "--json", Kind::kSwitch},

    {"explain", "--plan", Kind::kText},
    {"explain", "--op", Kind::kText},
    {"explain", "--model", Kind::kText},
    {"explain", "--json", Kind::kSwitch},

    {"sweep", "--model", Kind::kText},
    {"sweep", "--world", Kind::kInteger},
    {"sweep", "--gpus-per-node", Kind::kInteger},
    {"sweep", "--hardware", Kind::kText},
    {"sweep", "--dims", Kind::kIntList},
    {"sweep", "--dp-replicate", Kind::kIntList},
    {"sweep", "--dp-shard", Kind::kIntList},
    {"sweep", "--cp", Kind::kIntList},
    {"sweep", "--tp", Kind::kIntList},
    {"sweep", "--max-tp-per-node", Kind::kInteger},
    {"sweep", "--tp-across-nodes", Kind::kSwitch},
    {"sweep", "--parallelize", Kind::kText},
    {"sweep", "--top", Kind::kInteger},
    {"sweep", "--memory-limit", Kind::kSize},
    {"sweep", "--layers", Kind::kInteger},
    {"sweep", "--batch", Kind::kIntList},
    {"sweep", "--seq-len", Kind::kInteger},
    {"sweep", "--checkpoint", Kind::kText},
    {"sweep", "--grad-accum", Kind::kIntList},
    {"sweep", "--no-grad-sync", Kind::kSwitch},
    {"sweep", "--compile", Kind::kSwitch},
    {"sweep", "--no-compile", Kind::kSwitch},
    {"sweep", "--float8", Kind::kText},
    {"sweep", "--threads", Kind::kInteger},
    {"sweep", "--time-limit", Kind::kNumber},
    {"sweep", "--gap", Kind::kNumber},
    {"sweep", "--no-flatten", Kind::kSwitch},
    {"sweep", "--csv", Kind::kText},
    {"sweep", "--html", Kind::kText},
    {"sweep", "--plans", Kind::kText},
    {"sweep", "--resume", Kind::kText},
    {"sweep", "--json", Kind::kSwitch},
    {"sweep", "--quiet", Kind::kSwitch},

    {"replay", "--plan", Kind::kText},
    {"replay", "--backend", Kind::kText},
    {"replay", "--iters", Kind::kInteger},
    {"replay", "--warmup", Kind::kInteger},
    {"replay", "--launches", Kind::kInteger},
    {"replay", "--no-check", Kind::kSwitch},
    {"replay", "--no-verify", Kind::kSwitch},
    {"replay", "--compute", Kind::kSwitch},
    {"replay", "--out", Kind::kText},
    {"replay", "--json", Kind::kSwitch},
    {"replay", "--quiet", Kind::kSwitch},

    {"cost", "--collective", Kind::kText},
    {"cost", "--ranks", Kind::kInteger},
    {"cost", "--group", Kind::kIntList, "--collective all_reduce"},
    {"cost", "--gpus-per-node", Kind::kInteger},
    {"cost", "--hardware", Kind::kText},
    {"cost", "--sizes", Kind::kSize},
    {"cost", "--nccl-version", Kind::kText},
    {"cost", "--model", Kind::kText},
    {"cost", "--dtype", Kind::kText},
    {"cost", "--no-measured", Kind::kSwitch},
    {"cost", "--json", Kind::kSwitch},

    {"calibrate", "--nccl-tests", Kind::kText},
    {"calibrate", "--replay", Kind::kText},
    {"calibrate", "--base", Kind::kText},
    {"calibrate", "--name", Kind::kText},
    {"calibrate", "--out", Kind::kText},
    {"calibrate", "--json", Kind::kSwitch},

    {"list", "--json", Kind::kSwitch},
};

// The values a flag of `kind` must refuse. No dtplan flag takes a negative number other than
// --prefetch's -1, so -5 is invalid everywhere; fractions are valid only for kNumber.
std::vector<std::string> invalid_values(Kind kind) {
  switch (kind) {
    case Kind::kInteger:
    case Kind::kSize:
    case Kind::kIntList:
      return {"x", "99999999999999999999", "-5", "1.5"};
    case Kind::kUnsigned:
      return {"x", "18446744073709551616", "-5", "1.5"};
    case Kind::kNumber:
      return {"abc", "1e999", "-5"};
    case Kind::kText:
    case Kind::kSwitch:
      return {};
  }
  return {};
}

// The subcommands `dtplan --help` lists.
std::vector<std::string> commands() {
  const std::string help = cli_output("--help");
  std::vector<std::string> out;
  bool in_list = false;
  for (std::string_view line : core::split(help, '\n')) {
    if (line.starts_with("Subcommands:")) {
      in_list = true;
      continue;
    }
    if (!in_list || line.empty()) continue;
    std::string_view t = core::trim(line);
    out.emplace_back(t.substr(0, t.find(' ')));
  }
  return out;
}

// `dtplan <command> --help`: each long flag and its type name ("INT", "TEXT", "" for a switch).
std::map<std::string, std::string> help_flags(const std::string& command) {
  const std::string help = cli_output(command + " --help");
  std::map<std::string, std::string> out;
  for (std::string_view line : core::split(help, '\n')) {
    std::string_view t = core::trim(line);
    if (!line.starts_with("  -") || t.empty()) continue;
    const std::string_view names = t.substr(0, t.find(' '));
    std::string type;
    if (names.size() < t.size()) {
      std::string_view rest = core::trim(t.substr(names.size()));
      std::string_view word = rest.substr(0, rest.find_first_of(" =:"));
      if (!word.empty() &&
          std::all_of(word.begin(), word.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
        type = std::string(word);
      }
    }
    for (std::string_view name : core::split(names, ',')) {
      name = name.substr(0, name.find('{'));  // a flag pair's "--no-x{false}"
      if (name.starts_with("--") && name != "--help") out[std::string(name)] = type;
    }
  }
  return out;
}

std::string command_line(const Row& row, const std::string& value) {
  std::string base = row.base.empty() ? kCommandBase.at(row.command) : row.base;
  // Drop the flag's own value from the base: the option would be given twice.
  std::vector<std::string_view> words = core::split(base, ' ');
  std::string kept;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == row.flag) {
      ++i;
      continue;
    }
    kept += " " + std::string(words[i]);
  }
  return row.command + kept + " " + row.flag + " '" + value + "'";
}

TEST_CASE("flag values: the table classifies every flag of every command, as --help types it") {
  std::set<std::pair<std::string, std::string>> seen;
  const std::vector<std::string> listed = commands();
  CHECK(listed.size() >= 8);
  for (const std::string& command : listed) {
    CAPTURE(command);
    CHECK(kCommandBase.contains(command));
    for (const auto& [flag, type] : help_flags(command)) {
      CAPTURE(flag);
      CAPTURE(type);
      seen.insert({command, flag});
      auto row = std::find_if(kFlags.begin(), kFlags.end(),
                              [&](const Row& r) { return r.command == command && r.flag == flag; });
      INFO("a flag without a row in kFlags: classify it (and check its values)");
      REQUIRE(row != kFlags.end());
      const bool numeric_type = type == "INT" || type == "UINT" || type == "FLOAT";
      CHECK(numeric_type == numeric_scalar(row->kind));
      CHECK((type.empty()) == (row->kind == Kind::kSwitch));
      if (row->kind == Kind::kUnsigned) CHECK(type == "UINT");
      if (row->kind == Kind::kNumber) CHECK(type == "FLOAT");
    }
  }
  for (const Row& row : kFlags) {
    INFO("a row of kFlags for a flag --help does not list: " << row.command << " " << row.flag);
    CHECK(seen.contains({row.command, row.flag}));
  }
}

TEST_CASE("flag values: a refused value is one line naming the command and the flag, exit 2") {
  int runs = 0;
  for (const Row& row : kFlags) {
    for (const std::string& value : invalid_values(row.kind)) {
      const std::string args = command_line(row, value);
      CAPTURE(args);
      const CliResult r = run_cli(args);
      ++runs;
      INFO("stderr: " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err.starts_with("dtplan " + row.command + ": error: " + row.flag + ": "));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK(r.err.ends_with("\n"));
    }
  }
  CHECK(runs >= 100);
}

TEST_CASE("flag values: the examples of the issue, word for word") {
  CHECK(cli_failure("plan --model configs/models/llama3-tiny.json --mesh configs/meshes/2x2.json "
                    "--threads x",
                    2) == "dtplan plan: error: --threads: 'x' is not an integer\n");
  CHECK(cli_failure("plan --threads 2147483648", 2) ==
        "dtplan plan: error: --threads: '2147483648' is not in [-2147483648, 2147483647]\n");
  CHECK(cli_failure("plan --time-limit abc", 2) ==
        "dtplan plan: error: --time-limit: 'abc' is not a number\n");
  CHECK(cli_failure("plan --layers 1.5", 2) ==
        "dtplan plan: error: --layers: '1.5' is not an integer\n");
  CHECK(cli_failure("simulate --ranks x", 2) ==
        "dtplan simulate: error: --ranks: 'x' is not an integer\n");
  CHECK(cli_failure("simulate --prefetch x", 2) ==
        "dtplan simulate: error: --prefetch: 'x' is not an integer\n");
  CHECK(cli_failure("simulate --prefetch -2", 2) ==
        "dtplan simulate: error: --prefetch: '-2' is not in [-1, 1048576]\n");
  CHECK(cli_failure("plan --gap 1e999", 2) ==
        "dtplan plan: error: --gap: '1e999' is out of the range of a double\n");
  CHECK(cli_failure("plan --gap nan", 2) ==
        "dtplan plan: error: --gap: 'nan' is not a finite number\n");
  // --seed: all of 0..2^64-1, nothing outside (it wrapped around before).
  CHECK(cli_failure("simulate --seed -5", 2) ==
        "dtplan simulate: error: --seed: '-5' is not in [0, 18446744073709551615]\n");
  CHECK(cli_failure("redistribute --seed 18446744073709551616", 2) ==
        "dtplan redistribute: error: --seed: '18446744073709551616' is not in [0, "
        "18446744073709551615]\n");
  const std::string verified = cli_output(
      "redistribute --mesh 2,2 --names A,B --shape 8,8 --from 'P(sum),R' --to R,R "
      "--verify --json --seed 18446744073709551615");
  CHECK(verified.find("\"wrong_elements\": 0") != std::string::npos);
}

TEST_CASE("flag values: CLI11's usage errors are one line too") {
  CHECK(cli_failure("mesh --shap 2,2", 2) ==
        "dtplan mesh: error: --shap: unknown flag; did you mean '--shape'?\n");
  CHECK(cli_failure("mesh --shape 2,2 --zzzzzzzz", 2) ==
        "dtplan mesh: error: --zzzzzzzz: unknown flag (--help lists the flags)\n");
  CHECK(cli_failure("mesh --shape 2,2 stray", 2) ==
        "dtplan mesh: error: 'stray': unexpected argument\n");
  CHECK(cli_failure("mesh --shape", 2) == "dtplan mesh: error: --shape: missing its value\n");
  CHECK(cli_failure("cost --ranks 8", 2) == "dtplan cost: error: --collective: required\n");
  CHECK(cli_failure("replay", 2) == "dtplan replay: error: --plan: required\n");
  CHECK(cli_failure("", 2) == "dtplan: error: a command is required; 'dtplan --help' lists them\n");
  CHECK(cli_failure("mesh --json=maybe --shape 2", 2).starts_with("dtplan mesh: error: --json"));
  // A control character in an argument is escaped, so the message stays on one line.
  CHECK(cli_failure("\"$(printf 'me\\nsh')\"", 2) ==
        "dtplan: error: unknown command 'me<U+000A>sh'. Did you mean 'mesh'? Run 'dtplan --help' "
        "for the list of commands.\n");
  CHECK(cli_failure("mesh --shape \"$(printf '2\\n2')\"", 2) ==
        "dtplan mesh: error: --shape: '2<U+000A>2' is not an integer\n");
  CHECK(cli_failure("plan --threads \"$(printf '1\\033')\"", 2) ==
        "dtplan plan: error: --threads: '1<U+001B>' is not an integer\n");
}

}  // namespace
}  // namespace dtplan::testing
