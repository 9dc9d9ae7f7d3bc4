#include "sweep/plan_files.h"

#include <doctest/doctest.h>

#include <set>

#include "support/mesh_gen.h"

namespace dtplan::sweep {
namespace {

TEST_CASE("plan files: names from the mesh, unique over a sweep's candidates") {
  CHECK(plan_file_name({{8, 8}, {"dp", "tp"}, {}}) == "8x8_dp-tp.json");
  CHECK(plan_file_name({{2, 4, 8}, {"dp", "cp", "tp"}, {}}) == "2x4x8_dp-cp-tp.json");
  CHECK(plan_file_name({{64}, {"dp"}, {}}) == "64_dp.json");
  const auto candidates = testing::ok(enumerate_candidates({.world = 64}));
  std::set<std::string> names;
  for (const MeshCandidate& c : candidates) names.insert(plan_file_name(c));
  CHECK(names.size() == candidates.size());
}

}  // namespace
}  // namespace dtplan::sweep
