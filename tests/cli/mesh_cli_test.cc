// `dtplan mesh`: JSON and table output, slices, unflatten, mesh files, and every input error
// exiting 2 with a message naming the flag.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

Json json_of(const std::string& args) {
  return Json::parse(cli_output("mesh " + args + " --json"));
}

// Runs a command that must fail with `code`; returns its stderr.
std::string failure(const std::string& args, int code = 2) {
  return cli_failure("mesh " + args, code);
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

TEST_CASE("dtplan mesh --json: dims and flattened groups") {
  Json j = json_of("--shape 2,2,2 --names dp,cp,tp --flatten dp,tp");
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"shape", "names", "layout", "dims", "flattened"});
  CHECK(j["shape"] == Json({2, 2, 2}));
  CHECK(j["names"] == Json({"dp", "cp", "tp"}));
  CHECK(j["layout"] == "(2,2,2):(4,2,1)");
  REQUIRE(j["dims"].size() == 3);
  CHECK(j["dims"][0].dump() ==
        R"({"name":"dp","size":2,"layout":"2:4","groups":[[0,4],[1,5],[2,6],[3,7]]})");
  CHECK(j["dims"][2]["groups"] == Json::parse("[[0,1],[2,3],[4,5],[6,7]]"));
  REQUIRE(j["flattened"].size() == 1);
  CHECK(j["flattened"][0]["name"] == "dp_tp");
  CHECK(j["flattened"][0]["layout"] == "((2,2)):((4,1))");
  CHECK(j["flattened"][0]["groups"] == Json::parse("[[0,1,4,5],[2,3,6,7]]"));
}

TEST_CASE("dtplan mesh: the table output") {
  CliResult r = run_cli("mesh --shape 2,2,2 --names dp,cp,tp --flatten dp,tp --flatten dp,cp=x");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "# mesh dp,cp,tp: (2,2,2):(4,2,1), 8 ranks\n"
        "# name   kind          size  layout           groups\n"
        "#                   (ranks)\n"
        "  dp     dim              2  2:4              [0,4] [1,5] [2,6] [3,7]\n"
        "  cp     dim              2  2:2              [0,2] [1,3] [4,6] [5,7]\n"
        "  tp     dim              2  2:1              [0,1] [2,3] [4,5] [6,7]\n"
        "  dp_tp  flattened        4  ((2,2)):((4,1))  [0,1,4,5] [2,3,6,7]\n"
        "  x      flattened        4  4:2              [0,2,4,6] [1,3,5,7]\n");
  CliResult s = run_cli("mesh --shape 2,4 --names dp,tp --slice tp");
  CHECK(has(s.out, "# slice tp: 4:1, 4 ranks, 2 copies in 8 ranks\n"));
}

TEST_CASE("dtplan mesh: slice, unflatten and explicit ranks") {
  Json j = json_of("--shape 2,4 --names dp,tp --slice dp --unflatten tp=2,2:a,b");
  CHECK(j["slice"]["names"] == Json({"dp"}));
  CHECK(j["slice"]["layout"] == "2:4");
  CHECK(j["slice"]["dims"][0]["groups"] == Json::parse("[[0,4],[1,5],[2,6],[3,7]]"));
  CHECK(j["unflattened"]["names"] == Json({"dp", "a", "b"}));
  CHECK(j["unflattened"]["layout"] == "(2,2,2):(4,2,1)");
  CHECK(j["unflattened"]["dims"][1]["groups"] == Json::parse("[[0,2],[1,3],[4,6],[5,7]]"));
  CHECK(json_of("--shape 2,4 --names dp,tp --unflatten 1=4,1:a,b")["unflattened"]["layout"] ==
        "(2,4,1):(4,1,1)");
  Json e2 = json_of("--shape 2,2 --names dp,tp --ranks 4,5,6,7");
  CHECK(e2["ranks"] == Json({4, 5, 6, 7}));
  CHECK(e2["dims"][0]["groups"] == Json::parse("[[4,6],[5,7]]"));
  CHECK(e2["dims"][1]["groups"] == Json::parse("[[4,5],[6,7]]"));
  Json unnamed = json_of("--shape 2,2");
  CHECK(unnamed["names"].is_null());
  CHECK(unnamed["dims"][1]["name"] == "dim_1");
}

TEST_CASE("dtplan mesh --mesh: mesh files") {
  Json j = json_of("--mesh configs/meshes/8x8.json --flatten tp=t");
  CHECK(j["shape"] == Json({8, 8}));
  REQUIRE(j["flattened"].size() == 2);
  CHECK(j["flattened"][0]["name"] == "dp_tp");
  CHECK(j["flattened"][0]["layout"] == "64:1");
  CHECK(j["flattened"][1]["name"] == "t");
  CHECK(j["flattened"][1]["groups"].size() == 8);
  Json four = json_of("--mesh configs/meshes/2x4x8x8.json");
  CHECK(four["flattened"][1]["layout"] == "((4,8)):((64,1))");
  CHECK(four["flattened"][1]["groups"].size() == 16);
}

TEST_CASE("dtplan mesh: errors exit 2 and name the flag") {
  CHECK(
      has(failure("--shape 2,2,2 --names dp,cp,tp --slice tp,dp"),
          "dtplan mesh: error: --slice tp,dp: Invalid mesh_dim_names ('tp', 'dp') specified. Mesh "
          "dim indices should be in ascending order.\n"));
  CHECK(has(failure("--shape 2,2 --slice dim_0"),
            "--slice dim_0: Cannot slice a DeviceMesh without mesh_dim_names!"));
  CHECK(has(failure("--shape 2,2 --flatten dim_0,dim_1"),
            "--flatten dim_0,dim_1: Cannot flatten a DeviceMesh without mesh_dim_names!"));
  CHECK(has(failure("--names dp"), "--shape: required"));
  CHECK(has(failure("--shape 2,x"), "--shape: 'x' is not an integer"));
  CHECK(has(failure("--shape 2,0"), "--shape: mesh_shape (2, 0): dim 1 has size 0"));
  CHECK(has(failure("--shape 2,2 --names a,a"), "--names: Each mesh_dim_name must be unique."));
  CHECK(has(failure("--shape 2,2 --names a"),
            "--names: mesh_shape and mesh_dim_names should have same length!"));
  CHECK(has(failure("--shape 2,2 --ranks 0,1,2"),
            "--ranks: The rank map contains 3 element, which isn't large enough"));
  CHECK(has(failure("--shape 2,2 --ranks 0,1,2,2"), "--ranks: mesh ranks: rank 2 appears"));
  CHECK(has(failure("--shape 2,2 --names a,b --flatten b,a"), "--flatten b,a: Invalid"));
  CHECK(has(failure("--shape 2,2 --names a,b --flatten a,b=a"),
            "--flatten a,b=a: a already exists for submesh"));
  CHECK(has(failure("--shape 2,2 --names a,b --flatten a=x --flatten b=x"),
            "--flatten b=x: Flatten mesh with mesh_dim_name x has been created before"));
  CHECK(has(failure("--shape 2,2 --names a,b --flatten a,b="), "the name after '=' is empty"));
  CHECK(has(failure("--shape 2,4 --names dp,tp --unflatten tp"),
            "--unflatten: expected DIM=SIZES:NAMES"));
  CHECK(has(failure("--shape 2,4 --names dp,tp --unflatten pp=2,2:a,b"),
            "--unflatten pp=2,2:a,b: dim pp specified in `_unflatten` is not in ('dp', 'tp')"));
  CHECK(has(failure("--shape 2,4 --names dp,tp --unflatten 5=2,2:a,b"), "is out of range 2"));
  CHECK(has(failure("--shape 2,4 --names dp,tp --unflatten tp=2,3:a,b"),
            "The product of mesh_sizes=(2, 3) is 6"));
  CHECK(has(failure("--mesh configs/meshes/8x8.json --names a,b"),
            "--mesh: cannot be combined with --shape, --names or --ranks"));
  CHECK(has(failure("--mesh missing.json"), "--mesh: cannot read the mesh file missing.json"));
  CHECK(has(failure("--shape 4096,4096", 3), "more than the supported maximum"));
  CHECK(has(failure("--shape 2,2 --names a,b --flatten a,b extra"), "extra"));
}

}  // namespace
}  // namespace dtplan::testing
