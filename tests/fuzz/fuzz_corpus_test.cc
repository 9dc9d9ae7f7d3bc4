// Every seed (tests/fuzz/corpus/<target>/) and every regression input
// (tests/fuzz/regressions/<target>/, the inputs that once crashed a fuzz target) run through the
// fuzz bodies in the ordinary test build, under ASan/UBSan in CI: none may fail a property.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plan/plan_io.h"
#include "support/cli.h"
#include "support/fuzz_targets.h"
#include "support/plan_support.h"

namespace dtplan::testing {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename() != "README.md") {
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t run_folder(const FuzzTarget& target, const std::string& folder) {
  std::vector<fs::path> files =
      files_under(source_path("tests/fuzz/" + folder + "/") + std::string(target.name));
  for (const fs::path& file : files) {
    CAPTURE(file.string());
    CHECK(target.body(read_bytes(file)) == "");
  }
  return files.size();
}

TEST_CASE("fuzz: every seed of every target passes its properties") {
  for (const FuzzTarget& target : fuzz_targets()) {
    CAPTURE(target.name);
    CHECK(run_folder(target, "corpus") >= 3);  // each target has a seed corpus
  }
}

// The whole-model plan seed is what plan_to_json writes for the test plan, so that it follows the
// format. DTPLAN_UPDATE_SEEDS=1 rewrites it.
TEST_CASE("fuzz: the plan seed is the current plan format") {
  const std::string path = source_path("tests/fuzz/corpus/plan/small_model_plan.json");
  const std::string text = plan::plan_to_json(small_model_plan());
  if (std::getenv("DTPLAN_UPDATE_SEEDS") != nullptr) std::ofstream(path, std::ios::binary) << text;
  CHECK(read_bytes(path) == text);
}

TEST_CASE("fuzz: every regression input passes its properties") {
  for (const FuzzTarget& target : fuzz_targets()) {
    CAPTURE(target.name);
    run_folder(target, "regressions");
  }
}

TEST_CASE("fuzz: target names are unique and each has a corpus folder") {
  for (const FuzzTarget& target : fuzz_targets()) {
    CHECK(find_fuzz_target(target.name) == &target);
    CHECK(fs::is_directory(source_path("tests/fuzz/corpus/" + std::string(target.name))));
  }
  CHECK(find_fuzz_target("no-such-target") == nullptr);
}

}  // namespace
}  // namespace dtplan::testing
