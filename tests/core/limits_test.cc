#include "core/limits.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cost/group_topology.h"
#include "graph/graph_io.h"
#include "graph/llama3_config.h"
#include "mesh/device_mesh.h"
#include "mesh/mesh_root.h"
#include "placement/local_shape.h"
#include "placement/placement_text.h"
#include "placement/tensor_spec.h"
#include "sim/fake_process_group.h"

namespace dtplan::core {
namespace {

using Ints = std::vector<std::int64_t>;

bool names(const Error& e, const std::string& text) {
  return e.message.find(text) != std::string::npos;
}

TEST_CASE("limits: the modules use the constants of core/limits.h") {
  CHECK(mesh::kMaxMeshDims == kMaxMeshDims);
  CHECK(mesh::kMaxRanks == kMaxRanks);
  CHECK(placement::kMaxMeshDims == kMaxPlacementMeshDims);
  CHECK(graph::kMaxLayers == kMaxLayers);
  CHECK(sim::kMaxFakeWorldSize == kMaxFakeWorldSize);
  CHECK(limit_note("kMaxRanks") == " (kMaxRanks in core/limits.h)");
}

TEST_CASE("limits: at the limit works, one past it is unsupported and names the limit") {
  // Ranks: a 10^6-rank mesh and group work; kMaxRanks + 1 does not.
  auto million = mesh::DeviceMesh::create({1000, 1000}, {"dp", "tp"});
  REQUIRE(million.ok());
  CHECK(million->size() == 1000000);
  auto over = mesh::DeviceMesh::create({kMaxRanks + 1}, {});
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().kind == ErrorKind::kUnsupported);
  CHECK(names(over.error(), "kMaxRanks in core/limits.h"));
  CHECK(cost::contiguous_topology(kMaxRanks, 8, "--ranks").ok());
  auto group = cost::contiguous_topology(kMaxRanks + 1, 8, "--ranks");
  REQUIRE_FALSE(group.ok());
  CHECK(group.error().kind == ErrorKind::kUnsupported);
  CHECK(names(group.error(), "--ranks: group size 4194305"));
  CHECK(names(group.error(), "kMaxRanks"));
  CHECK(cost::contiguous_topology(0, 8, "--ranks").error().kind == ErrorKind::kBadInput);

  // Mesh dims.
  CHECK(mesh::DeviceMesh::create(Ints(kMaxMeshDims, 1), {}).ok());
  auto dims = mesh::DeviceMesh::create(Ints(kMaxMeshDims + 1, 1), {});
  REQUIRE_FALSE(dims.ok());
  CHECK(dims.error().kind == ErrorKind::kUnsupported);
  CHECK(names(dims.error(), "kMaxMeshDims"));

  // Placement mesh dims and tensor rank.
  auto rs = [](std::size_t n) {
    std::vector<placement::Placement> out(n, placement::Placement::replicate());
    return out;
  };
  Ints mesh16(kMaxPlacementMeshDims, 1);
  CHECK(placement::TensorSpec::make({4}, DType::kF32, rs(16), mesh16).ok());
  Ints mesh17(kMaxPlacementMeshDims + 1, 1);
  auto spec17 = placement::TensorSpec::make({4}, DType::kF32, rs(17), mesh17);
  REQUIRE_FALSE(spec17.ok());
  CHECK(spec17.error().kind == ErrorKind::kUnsupported);
  CHECK(names(spec17.error(), "kMaxPlacementMeshDims"));
  CHECK(placement::TensorSpec::make(Ints(kMaxTensorRank, 1), DType::kF32, rs(1), Ints{2}).ok());
  auto rank65 =
      placement::TensorSpec::make(Ints(kMaxTensorRank + 1, 1), DType::kF32, rs(1), Ints{2});
  REQUIRE_FALSE(rank65.ok());
  CHECK(rank65.error().kind == ErrorKind::kUnsupported);
  CHECK(names(rank65.error(), "kMaxTensorRank"));
}

TEST_CASE(
    "limits: a graph document with more than kMaxGraphNodes nodes is refused before parsing") {
  std::string doc = R"({"graph": {"nodes": [)";
  for (std::int64_t i = 0; i <= kMaxGraphNodes; ++i) doc += i == 0 ? "0" : ",0";
  doc += "]}}";
  auto g = graph::parse_graph_json(doc);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().kind == ErrorKind::kUnsupported);
  CHECK(names(g.error(), "1048577 nodes"));
  CHECK(names(g.error(), "kMaxGraphNodes"));
}

TEST_CASE("limits: below the limits, sizes are checked 64-bit arithmetic") {
  // A 10^12-element tensor sharded over a 10^6-rank mesh: every local shape and byte count.
  auto list = placement::parse_placement_list("S(0),S(0)", "--from");
  REQUIRE(list.ok());
  Ints mesh = {1000, 1000};
  auto spec = placement::TensorSpec::make({1000000000000}, DType::kF32, *list, mesh);
  REQUIRE(spec.ok());
  CHECK(spec->global_bytes() == 4000000000000);
  auto local = placement::local_shape(*spec, mesh, Ints{999, 999});
  REQUIRE(local.ok());
  CHECK(*local == Ints{1000000});
  CHECK(placement::local_bytes(*spec, mesh, Ints{0, 0}).value() == 4000000);
  // One more factor of 2^23 overflows the byte count: kBadInput naming it, no wrap.
  auto huge = placement::TensorSpec::make({std::int64_t{1} << 62}, DType::kF32, *list, mesh);
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().kind == ErrorKind::kBadInput);
  CHECK(names(huge.error(), "bytes"));
  CHECK(names(huge.error(), "overflows 64-bit integers"));
}

}  // namespace
}  // namespace dtplan::core
