// The limits of core/limits.h as the commands apply them: each one past its limit names the flag
// (not a file) and the limit, with the exit code of the README's table; flags that two commands
// share mean the same in both; input files are read up to a cap.

#include <doctest/doctest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

const std::string kPlan =
    "plan --model configs/models/llama3-tiny.json --mesh configs/meshes/2x2.json";
const std::string kSweep = "sweep --model tests/data/fx_export_sample.json --world 8 --dims 1";
const std::string kSmallPlan = "tests/data/replay/small_model_plan.json";

// Regression: `--layers 5000` was reported against the model file ("llama3-tiny.json: field
// 'n_layers': ..."), and an overflowing one by CLI11 in two lines without the flag's prefix.
TEST_CASE("limits cli: --layers beyond kMaxLayers names the flag, in plan and sweep") {
  CHECK(cli_failure(kPlan + " --layers 5000", 3) ==
        "dtplan plan: error: --layers: 5000 is more than the supported maximum of 1024 layers "
        "(kMaxLayers in core/limits.h)\n");
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json --world 8 --layers 5000", 3) ==
        "dtplan sweep: error: --layers: 5000 is more than the supported maximum of 1024 layers "
        "(kMaxLayers in core/limits.h)\n");
  CHECK(cli_failure(kPlan + " --layers 99999999999999999999", 2) ==
        "dtplan plan: error: --layers: '99999999999999999999' is not in [-9223372036854775808, "
        "9223372036854775807]\n");
  CHECK(cli_failure(kPlan + " --layers 0", 2) == "dtplan plan: error: --layers: 0 is not >= 1\n");
  CHECK(cli_output(kPlan + " --layers 1024 --solver greedy --json").find("\"layers\": 1024") !=
        std::string::npos);
}

// Regression: the sweep had a limit of its own (2^24 ranks), above kMaxRanks.
TEST_CASE("limits cli: sweep --world obeys kMaxRanks") {
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json --world 8388608", 3) ==
        "dtplan sweep: error: --world: 8388608 is more than the supported maximum of 4194304 "
        "ranks (kMaxRanks in core/limits.h)\n");
}

// Regression: a world past the fake process group's limit was exit 2 with a message naming
// neither the flag nor a limit of the README's table.
TEST_CASE("limits cli: simulate --ranks beyond kMaxFakeWorldSize names the flag, exit 3") {
  CHECK(cli_failure("simulate --plan " + kSmallPlan + " --ranks 1048577", 3) ==
        "dtplan simulate: error: --ranks: 1048577 is more than the supported maximum of 1048576 "
        "fake ranks (kMaxFakeWorldSize in core/limits.h)\n");
  CHECK(cli_failure("simulate --plan " + kSmallPlan + " --ranks -1", 2) ==
        "dtplan simulate: error: --ranks: -1 is negative (0, the default: the plan's mesh size)\n");
  CHECK(cli_output("simulate --plan " + kSmallPlan + " --ranks 16 --json").find("\"ranks\": 16") !=
        std::string::npos);
}

// Regression: `sweep --memory-limit 0` meant no limit while `plan --memory-limit 0` meant a zero
// budget, and `plan --memory-limit none` was an error while sweep accepted it.
TEST_CASE("limits cli: --memory-limit reads alike in plan and sweep") {
  const std::string zero = "--memory-limit: '0' is not a positive size or none\n";
  CHECK(cli_failure(kPlan + " --memory-limit 0", 2) == "dtplan plan: error: " + zero);
  CHECK(cli_failure(kSweep + " --memory-limit 0", 2) == "dtplan sweep: error: " + zero);
  // none: no limit on the whole state, the planner's default parameter budget.
  const std::string plain = cli_output(kPlan + " --solver greedy --json");
  const std::string none = cli_output(kPlan + " --solver greedy --json --memory-limit none");
  const Json a = Json::parse(plain);
  const Json b = Json::parse(none);
  CHECK(a["memory"] == b["memory"]);
  CHECK(a["cost"] == b["cost"]);
  CHECK(b["memory"]["limit_bytes"] == 0);
  const Json swept = Json::parse(cli_output(kSweep + " --memory-limit none --json"));
  CHECK(swept["memory_limit_bytes"] == 0);
}

TEST_CASE("limits cli: --threads beyond kMaxThreads names the limit") {
  CHECK(cli_failure(kPlan + " --threads 1025", 2) ==
        "dtplan plan: error: --threads: 1025 is not in [0, 1024] (0: one per hardware thread) "
        "(kMaxThreads in core/limits.h)\n");
  CHECK(cli_failure(kSweep + " --threads 1025", 2) ==
        "dtplan sweep: error: --threads: 1025 is not in [0, 1024] (0: one per hardware thread) "
        "(kMaxThreads in core/limits.h)\n");
}

// Regression: input was read whole before any check, so /dev/zero or a 200 MB file took
// gigabytes of memory; now reading stops a byte past the cap.
TEST_CASE("limits cli: an input file past the cap is exit 2 naming the cap and how to raise it") {
  CHECK(cli_failure("simulate --plan /dev/zero", 2) ==
        "dtplan simulate: error: --plan: cannot read the plan file /dev/zero: larger than the "
        "input limit of 167772160 bytes (kMaxInputBytes in core/limits.h; set "
        "DTPLAN_MAX_INPUT_BYTES to raise it)\n");
  REQUIRE(std::getenv("DTPLAN_MAX_INPUT_BYTES") == nullptr);
  ::setenv("DTPLAN_MAX_INPUT_BYTES", "64", 1);  // below configs/meshes/2x4x8x8.json's size
  CHECK(cli_failure("mesh --mesh configs/meshes/2x4x8x8.json", 2) ==
        "dtplan mesh: error: --mesh: cannot read the mesh file configs/meshes/2x4x8x8.json: larger "
        "than the input limit of 64 bytes (kMaxInputBytes in core/limits.h; set "
        "DTPLAN_MAX_INPUT_BYTES to raise it)\n");
  ::setenv("DTPLAN_MAX_INPUT_BYTES", "1KiB", 1);  // raised again: the file reads
  CHECK_FALSE(cli_output("mesh --mesh configs/meshes/2x4x8x8.json").empty());
  ::setenv("DTPLAN_MAX_INPUT_BYTES", "lots", 1);
  CHECK(cli_failure("mesh --mesh configs/meshes/2x4x8x8.json", 2) ==
        "dtplan mesh: error: --mesh: DTPLAN_MAX_INPUT_BYTES: 'lots' is not a size\n");
  ::unsetenv("DTPLAN_MAX_INPUT_BYTES");
}

}  // namespace
}  // namespace dtplan::testing
