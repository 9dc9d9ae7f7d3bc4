#include "sweep/resume_store.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "support/mesh_gen.h"
#include "support/temp_dir.h"

namespace dtplan::sweep {
namespace {

using testing::error_of;
using testing::ok;

const Fingerprint kPrint{{"model", "llama3-8b"}, {"world", "64"}, {"--gap", "0.0001"}};

PointOutcome outcome(double step) {
  PointOutcome o;
  o.evaluation.step_time_us = step;
  o.evaluation.memory_bytes_per_rank = 123;
  o.evaluation.note = "within 0.01%";
  return o;
}

TEST_CASE("resume store: records a point whole and loads it back") {
  testing::TempDir tmp("resume");
  const std::string dir = tmp.at("r/deep");
  const ResumeStore store = ok(ResumeStore::prepare(dir, kPrint));
  CHECK(ok(store.load("8x8_dp-tp")) == std::nullopt);
  CHECK(store.record("8x8_dp-tp", outcome(0.1 + 0.2)).ok());
  CHECK(ok(store.load("8x8_dp-tp")) == outcome(0.1 + 0.2));
  // Written by rename: only the point file is there, no temporary one.
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/points")) {
    names.insert(e.path().filename().string());
  }
  CHECK(names == std::set<std::string>{"8x8_dp-tp.json"});
  // Reopened with the same fingerprint: the point is still there.
  const ResumeStore again = ok(ResumeStore::prepare(dir, kPrint));
  CHECK(ok(again.load("8x8_dp-tp")) == outcome(0.1 + 0.2));
  CHECK(again.point_path("a") == dir + "/points/a.json");
}

TEST_CASE("resume store: another sweep's directory is refused, naming the first field") {
  testing::TempDir tmp("resume");
  const std::string dir = tmp.at("r");
  ok(ResumeStore::prepare(dir, kPrint));
  Fingerprint other = kPrint;
  other[1].value = "128";
  CHECK(error_of(ResumeStore::prepare(dir, other)) ==
        "--resume " + dir + ": recorded for a different sweep (world)");
  other = kPrint;
  other.push_back({"--batch", "8"});
  CHECK(ResumeStore::prepare(dir, other).error().kind == core::ErrorKind::kBadInput);
  CHECK(first_difference(kPrint, other) == "--batch");
  CHECK(first_difference(other, kPrint) == "--batch");
  CHECK(first_difference(kPrint, kPrint).empty());
}

TEST_CASE("resume store: a point file that does not read back is an error naming it") {
  testing::TempDir tmp("resume");
  const std::string dir = tmp.at("r");
  const ResumeStore store = ok(ResumeStore::prepare(dir, kPrint));
  {
    std::FILE* f = std::fopen(store.point_path("x").c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("{\"step_time_us\": 1", f);
    std::fclose(f);
  }
  CHECK(error_of(store.load("x")).find(store.point_path("x")) != std::string::npos);
  CHECK(fingerprint_from_string(fingerprint_to_string(kPrint), "f").value() == kPrint);
}

}  // namespace
}  // namespace dtplan::sweep
