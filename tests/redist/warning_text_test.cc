#include "redist/warning_text.h"

#include <doctest/doctest.h>

namespace dtplan::redist {
namespace {

TEST_CASE("warning_text: mesh dims by name or index, one line per warning") {
  MeshDescription named;
  named.shape = {2, 4};
  named.names = {"dp", "tp"};
  MeshDescription unnamed;
  unnamed.shape = {2, 4};
  const std::vector<std::int32_t> dims = {0, 1};
  CHECK(mesh_dims_text(named, dims) == "dp,tp");
  CHECK(mesh_dims_text(unnamed, dims) == "0,1");
  CHECK(mesh_dims_text(named, {}) == "");
  const std::vector<Warning> warnings = {
      {WarningReason::kNoFlattenedMesh, {0, 1}, "no flattened mesh"},
      {WarningReason::kDivergentReplicas, {1}, "replicas differ"}};
  CHECK(warning_lines(named, warnings) ==
        "# warning " + std::string(warning_reason_name(WarningReason::kNoFlattenedMesh)) +
            " (mesh dims dp,tp): no flattened mesh\n# warning " +
            std::string(warning_reason_name(WarningReason::kDivergentReplicas)) +
            " (mesh dims tp): replicas differ\n");
  CHECK(warning_lines(named, {}) == "");
}

}  // namespace
}  // namespace dtplan::redist
