#include "mesh/mesh_io.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "layout/layout_text.h"
#include "mesh/mesh_ops.h"
#include "support/cli.h"
#include "support/layout_gen.h"
#include "support/mesh_gen.h"

namespace dtplan::mesh {
namespace {

using testing::error_of;
using testing::Ints;
using testing::lay;
using testing::Names;
using testing::ok;
using testing::range;
using testing::Rows;

std::string parse_error(std::string_view text) {
  return error_of(parse_mesh_config(text, "m.json"));
}

std::string build_error(std::string_view text) {
  return error_of(build_mesh(ok(parse_mesh_config(text, "m.json")), "m.json"));
}

TEST_CASE("mesh files: every shipped config loads") {
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::source_path("configs/meshes"))) {
    INFO(entry.path().string());
    LoadedMesh m = ok(load_mesh_file(entry.path().string()));
    std::int64_t n = 1;
    for (std::int64_t s : m.config.shape) n *= s;
    CHECK(m.root.size() == n);
    CHECK(m.root.names() == m.config.names);
    CHECK(m.flattened.size() == m.config.flatten.size());
    // every mesh names a shipped profile (h100-dgx, or the 500 W Grand Teton host)
    CHECK((m.config.hardware == "h100-dgx" || m.config.hardware == "h100-96gb-500w"));
    ++files;
  }
  CHECK(files >= 5);
}

TEST_CASE("mesh files: 8x8 and 2x4x8x8 exactly") {
  LoadedMesh m = ok(load_mesh_file(testing::source_path("configs/meshes/8x8.json")));
  CHECK(m.config ==
        MeshConfig{{8, 8}, {"dp", "tp"}, {{{"dp", "tp"}, ""}}, "h100-dgx", std::nullopt});
  CHECK(m.root.layout() == lay("(8,8):(8,1)"));
  REQUIRE(m.flattened.size() == 1);
  CHECK(m.flattened[0].names() == Names{"dp_tp"});
  CHECK(m.flattened[0].layout() == lay("64:1"));
  CHECK(testing::groups(m.flattened[0]) == Rows{range(0, 64)});
  LoadedMesh four = ok(load_mesh_file(testing::source_path("configs/meshes/2x4x8x8.json")));
  REQUIRE(four.flattened.size() == 2);
  CHECK(four.flattened[0].layout() == lay("32:8"));
  CHECK(four.flattened[1].names() == Names{"dp_tp"});
  CHECK(four.flattened[1].layout() == lay("((4,8)):((64,1))"));
  CHECK(flattened_meshes(four.root).size() == 2);
}

TEST_CASE("mesh files: explicit ranks and flatten objects") {
  MeshConfig c = ok(parse_mesh_config(
      R"({"shape": [2, 2], "names": ["dp", "tp"], "ranks": [4, 5, 6, 7],
          "flatten": [{"dims": ["dp", "tp"], "name": "world"}, {"dims": ["tp"]}]})",
      "m.json"));
  CHECK(c.ranks == Ints{4, 5, 6, 7});
  CHECK(c.flatten == std::vector<FlattenSpec>{{{"dp", "tp"}, "world"}, {{"tp"}, ""}});
  CHECK(c.hardware.empty());
  LoadedMesh m = ok(build_mesh(c, "m.json"));
  CHECK(testing::groups(m.root, "dp") == Rows{{4, 6}, {5, 7}});
  CHECK(m.flattened[0].names() == Names{"world"});
  CHECK(testing::groups(m.flattened[0]) == Rows{{4, 5, 6, 7}});
  CHECK(m.flattened[1].names() == Names{"tp"});  // a 1-D slice flattened under its own name
  CHECK(ok(parse_mesh_config(R"({"shape": [4]})", "m.json")).names.empty());
}

TEST_CASE("mesh files: parse errors name the file and the field") {
  CHECK(parse_error("{").starts_with("m.json: invalid JSON: "));
  CHECK(parse_error("[1]") == "m.json: expected a JSON object, got array");
  CHECK(parse_error(R"({"shap": [2]})") ==
        "m.json: unknown field 'shap'; did you mean 'shape'? (fields: shape, names, flatten, "
        "hardware, ranks)");
  CHECK(parse_error(R"({"names": ["a"]})") ==
        "m.json: field 'shape': missing (e.g. \"shape\": [8, 8])");
  CHECK(parse_error(R"({"shape": []})") ==
        "m.json: field 'shape': expected a non-empty list of integers, got []");
  CHECK(parse_error(R"({"shape": [2, 2.5]})").starts_with("m.json: field 'shape': "));
  CHECK(parse_error(R"({"shape": "8,8"})").starts_with("m.json: field 'shape': "));
  CHECK(parse_error(R"({"shape": [18446744073709551615]})").starts_with("m.json: field 'shape'"));
  CHECK(parse_error(R"({"shape": [2], "names": [1]})") ==
        "m.json: field 'names': expected a list of non-empty names, got [1]");
  CHECK(parse_error(R"({"shape": [2], "names": [""]})").starts_with("m.json: field 'names'"));
  CHECK(parse_error(R"({"shape": [2], "flatten": "dp"})") ==
        "m.json: field 'flatten': expected a list, got \"dp\"");
  CHECK(parse_error(R"({"shape": [2], "flatten": [["dp", 3]]})")
            .starts_with("m.json: field 'flatten[0]': expected a list of non-empty names"));
  CHECK(parse_error(R"({"shape": [2], "flatten": [[]]})") ==
        "m.json: field 'flatten[0]': expected at least one dim name");
  CHECK(parse_error(R"({"shape": [2], "flatten": [{"dim": ["a"]}]})") ==
        "m.json: unknown field 'dim' in flatten[0]; did you mean 'dims'? (fields: dims, name)");
  CHECK(parse_error(R"({"shape": [2], "flatten": [{"name": "x"}]})") ==
        "m.json: field 'flatten[0]': missing 'dims'");
  CHECK(parse_error(R"({"shape": [2], "flatten": [{"dims": ["a"], "name": 3}]})") ==
        "m.json: field 'flatten[0].name': expected a non-empty string, got 3");
  CHECK(parse_error(R"({"shape": [2], "hardware": 1})") ==
        "m.json: field 'hardware': expected a string, got 1");
  CHECK(parse_error(R"({"shape": [2], "ranks": ["a"]})").starts_with("m.json: field 'ranks'"));
  std::string long_list = R"({"shape": [2], "ranks": [)";
  for (int i = 0; i < 50; ++i) long_list += "10, ";
  long_list += R"("x"]})";
  CHECK(parse_error(long_list).ends_with("..."));
  CHECK(error_of(load_mesh_file("/nonexistent/m.json")) ==
        "cannot read the mesh file /nonexistent/m.json: No such file or directory");
}

TEST_CASE("mesh files: mesh errors name the file and the field") {
  CHECK(
      build_error(R"({"shape": [2, 0]})").starts_with("m.json: field 'shape': mesh_shape (2, 0)"));
  CHECK(build_error(R"({"shape": [2, 2], "names": ["a", "a"]})")
            .starts_with("m.json: field 'names': Each mesh_dim_name must be unique."));
  CHECK(build_error(R"({"shape": [2, 2], "names": ["a"]})")
            .starts_with("m.json: field 'names': mesh_shape and mesh_dim_names should have same "
                         "length!"));
  CHECK(build_error(R"({"shape": [2, 2], "ranks": [0, 1, 2]})") ==
        "m.json: field 'ranks': The rank map contains 3 element, which isn't large enough for "
        "layout (2,2):(2,1)");
  CHECK(build_error(R"({"shape": [2, 2], "ranks": [0, 1, 2, 2]})")
            .starts_with("m.json: field 'ranks': mesh ranks: rank 2 appears"));
  CHECK(build_error(R"({"shape": [2, 2], "flatten": [["dim_0"]]})")
            .starts_with(
                "m.json: field 'flatten[0]': Cannot flatten a DeviceMesh without mesh_dim_names!"));
  CHECK(build_error(R"({"shape": [2, 2], "names": ["a", "b"], "flatten": [["b", "a"]]})") ==
        "m.json: field 'flatten[0]': Invalid mesh_dim_names ('b', 'a') specified. Mesh dim "
        "indices should be in ascending order.");
  CHECK(build_error(R"({"shape": [2, 2], "names": ["a", "b"], "flatten": [{"dims": ["a", "b"],
        "name": "a"}]})")
            .starts_with("m.json: field 'flatten[0]': a already exists for submesh"));
}

TEST_CASE("mesh JSON: dims, meshes and flattened meshes") {
  DeviceMesh m = testing::make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  CHECK(dim_json(m, MeshDim{1}).dump() ==
        R"({"name":"cp","size":2,"layout":"2:2","groups":[[0,2],[1,3],[4,6],[5,7]]})");
  DeviceMesh dp_tp = testing::flat(testing::sliced(m, {"dp", "tp"}));
  CHECK(flattened_json(dp_tp).dump() ==
        R"j({"name":"dp_tp","size":4,"layout":"((2,2)):((4,1))","groups":[[0,1,4,5],[2,3,6,7]]})j");
  nlohmann::ordered_json j = mesh_json(testing::sliced(m, {"dp", "tp"}));
  CHECK(j["shape"] == nlohmann::ordered_json({2, 2}));
  CHECK(j["names"] == nlohmann::ordered_json({"dp", "tp"}));
  CHECK(j["layout"] == "(2,2):(4,1)");
  CHECK(j["dims"].size() == 2);
  CHECK(
      mesh_json(testing::make_mesh({2}, {})).dump() ==
      R"({"shape":[2],"names":null,"layout":"2:1","dims":[{"name":"dim_0","size":2,"layout":"2:1","groups":[[0,1]]}]})");
}

// Regression (tests/fuzz/regressions/mesh/): out_of_range from nlohmann for 1e999 escaped the
// parse_error handler and ended `dtplan mesh --mesh` with exit 1.
TEST_CASE("mesh files: a number too large for a double is invalid JSON, not an exception") {
  auto r = parse_mesh_config(R"({"shape": [1e999]})", "big.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.starts_with("big.json: invalid JSON: "));
  CHECK(r.error().message.find("number overflow parsing '1e999'") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::mesh
