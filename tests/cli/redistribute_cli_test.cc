// `dtplan redistribute`: the JSON document (keys, comm_counts, steps, warnings, trace) and that
// it reads back as a plan, the table, mesh files, the merge switch, planners and models, and the
// exit codes of unsupported (3) and malformed (2) requests with messages naming the flag.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "redist/redist_plan_io.h"
#include "support/cli.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

Json json_of(const std::string& args) {
  return Json::parse(cli_output("redistribute " + args + " --json"));
}

std::string failure(const std::string& args, int code) {
  return cli_failure("redistribute " + args, code);
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

const std::string kABC = "--mesh 2,2,2 --names A,B,C --shape 16,16,16 ";

TEST_CASE("dtplan redistribute --json: a merged all_reduce on a flattened mesh") {
  Json j = json_of(kABC + "--flatten A,C --from 'P(sum),R,P(sum)' --to R,R,R");
  CHECK(json_keys(j.dump()) == std::vector<std::string>{"mesh", "tensor", "src", "dst", "planner",
                                                        "requested_planner", "model", "merge",
                                                        "steps", "comm_counts", "total_cost_us",
                                                        "warnings", "trace"});
  CHECK(j["comm_counts"].dump() ==
        R"({"all_gather":0,"all_reduce":1,"reduce_scatter":0,"all_to_all":0})");
  REQUIRE(j["steps"].size() == 1);
  CHECK(json_keys(j["steps"][0].dump()) ==
        std::vector<std::string>{"collective", "mesh_dims", "flattened_mesh", "group_size", "bytes",
                                 "cost_us", "algorithm", "protocol", "src", "dst", "avg_scale",
                                 "state"});
  CHECK(j["steps"][0]["flattened_mesh"] == "A_C");
  CHECK(j["steps"][0]["mesh_dims"] == Json({0, 2}));
  CHECK(j["trace"] == "P(sum)RP(sum)-->RRR");
  CHECK(j["warnings"].empty());
  CHECK(j["total_cost_us"] == j["steps"][0]["cost_us"]);
  CHECK(j["planner"] == "greedy");
  CHECK(j["requested_planner"] == "auto");
  // What --json writes is a plan file.
  auto plan = redist::read_plan_json(j.dump(), "stdout");
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
  CHECK(plan->steps.size() == 1);
}

TEST_CASE("dtplan redistribute: without a flattened mesh, two all_reduces and a warning") {
  Json j = json_of(kABC + "--from 'P(sum),R,P(sum)' --to R,R,R");
  CHECK(j["comm_counts"]["all_reduce"] == 2);
  REQUIRE(j["warnings"].size() == 1);
  const Json& w = j["warnings"][0];
  CHECK(w["reason"] == "no_flattened_mesh");
  CHECK(w["mesh_dims"] == Json({0, 2}));
  for (const char* part :
       {"While redistributing from", "Partial(sum)", "Replicate()", "2 sequential", "all_reduce",
        "\"A\"", "\"C\"", "suboptimal", "flatten mesh dimensions [\"A\", \"C\"]", "bitwise"}) {
    CHECK(has(w["message"].get<std::string>(), part));
  }
  // --no-merge: the same two steps, no pass, no warning.
  Json off = json_of(kABC + "--flatten A,C --from 'P(sum),R,P(sum)' --to R,R,R --no-merge");
  CHECK(off["comm_counts"]["all_reduce"] == 2);
  CHECK(off["merge"] == false);
  CHECK(off["warnings"].empty());
}

TEST_CASE("dtplan redistribute: the table") {
  CliResult r =
      run_cli("redistribute --mesh 8 --shape 1024,1024 --from 'S(0)' --to R --model dtensor");
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "# dtplan redistribute: f32[1024,1024] S(0) -> R\n"
        "# mesh [8], h100-dgx (8 GPUs per node); greedy planner (auto), dtensor model, merge on\n"
        "# step  collective  mesh_dims  flattened    group   bytes   time  algorithm  protocol  "
        "src   dst  state\n"
        "#                                         (ranks)     (B)   (us)\n"
        "     0  all_gather  0          -                8  524288  49.77  none       -         "
        "S(0)  R    R\n"
        "# comm_counts: all_gather 1, all_reduce 0, reduce_scatter 0, all_to_all 0\n"
        "# total_cost_us: 49.773\n"
        "# trace: S(0)->R\n");
}

TEST_CASE("dtplan redistribute: mesh files, planners and models") {
  // configs/meshes/2x2x2.json flattens A and C.
  Json f = json_of(
      "--mesh configs/meshes/2x2x2.json --shape 16 --from 'P(sum),R,P(sum)' "
      "--to R,R,R");
  CHECK(f["trace"] == "P(sum)RP(sum)-->RRR");
  CHECK(f["mesh"]["flattened"][0]["name"] == "A_C");
  Json m = json_of(
      "--mesh 2,2,2 --shape 8,8,8 --from 'S(0),R,R' --to 'S(1),R,R' "
      "--model dtensor --planner min-cost");
  CHECK(m["trace"] == "S(0)RR->RRR->S(1)RR");
  CHECK(m["total_cost_us"].get<double>() == doctest::Approx(7.211).epsilon(1e-4));
  Json g = json_of(
      "--mesh 2,2,2 --shape 8,8,8 --from 'S(0),R,R' --to 'S(1),R,R' "
      "--model dtensor --planner greedy");
  CHECK(g["comm_counts"]["all_to_all"] == 1);
  CHECK(g["total_cost_us"].get<double>() == doctest::Approx(8.205).epsilon(1e-4));
  Json order = json_of("--mesh 2,2 --shape 16 --from 'S(0)[1],S(0)[0]' --to R,R");
  CHECK(order["planner"] == "min-cost");
  CHECK(order["comm_counts"]["all_gather"] == 2);
  Json hw = json_of(
      "--mesh 4,8 --shape 4096,4096 --dtype bf16 --from 'P(sum),R' --to R,R "
      "--hardware a100-dgx --gpus-per-node 4");
  CHECK(hw["mesh"]["hardware"] == "a100-dgx");
  CHECK(hw["mesh"]["gpus_per_node"] == 4);
  CHECK(hw["steps"][0]["bytes"] == 4096 * 4096 * 2);
}

TEST_CASE("dtplan redistribute: unsupported requests exit 3") {
  CHECK(has(failure("--mesh 2,2 --shape 8 --from 'P(sum),R' --to 'P(max),R'", 3),
            "Partial(sum) to Partial(max)"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from 'S(0),R' --to 'P(sum),R'", 3),
            "Shard(dim=0) to Partial(sum)"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from 'S(0)[1],S(0)[0]' --to R,R --planner greedy", 3),
            "greedy"));
}

TEST_CASE("dtplan redistribute: malformed input exits 2 naming the flag") {
  CHECK(has(failure("--mesh 2,2 --shape 8 --from 'P(sum),X' --to R,R", 2), "--from"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from R --to R,R", 2), "--from"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from R,R --to 'S(3),R'", 2), "--to"));
  CHECK(has(failure("--mesh 2,2 --shape 8,x --from R,R --to R,R", 2), "--shape"));
  CHECK(has(failure("--mesh 2,2 --shape -8 --from R,R --to R,R", 2), "--shape"));
  CHECK(has(failure("--mesh 2,2 --from R,R --to R,R", 2), "--shape"));
  CHECK(has(failure("--mesh 2,0 --shape 8 --from R,R --to R,R", 2), "--mesh"));
  CHECK(has(failure("--mesh 2,2 --names A --shape 8 --from R,R --to R,R", 2), "--names"));
  CHECK(has(failure("--mesh 2,2 --names A,B --flatten A,Z --shape 8 --from R,R --to R,R", 2),
            "--flatten A,Z"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from R,R --to R,R --planner fast", 2), "--planner"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from R,R --to R,R --model roofline", 2), "--model"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from R,R --to R,R --gpus-per-node 99", 2),
            "--gpus-per-node"));
  CHECK(has(failure("--mesh 2,2 --shape 8 --from R,R --to R,R --dtype f13", 2), "--dtype"));
  CHECK(has(failure("--mesh configs/meshes/2x2x2.json --names A,B,C --shape 8 --from R,R,R "
                    "--to R,R,R",
                    2),
            "--names"));
  CHECK(has(failure("--mesh no/such.json --shape 8 --from R --to R", 2), "--mesh"));
}

TEST_CASE("dtplan redistribute: a step on a size-1 mesh dim keeps no reductions apart") {
  // Mesh 7,1,6 with B_D flattened: DTensor's greedy order is all_reduce(B), a reduce_scatter on
  // the one-rank dim C, all_reduce(D). The two all_reduces merge into one on B_D.
  const std::string args =
      "--mesh 7,1,6 --names B,C,D --flatten B,D --shape 42,5 --from 'P(sum),P(sum),P(sum)' "
      "--to 'R,S(0),R' --verify";
  Json greedy = json_of(args + " --planner greedy");
  Json exact = json_of(args + " --planner min-cost");
  CHECK(greedy["comm_counts"]["all_reduce"] == 1);
  CHECK(greedy["steps"][0]["flattened_mesh"] == "B_D");
  CHECK(greedy["total_cost_us"] == exact["total_cost_us"]);
  CHECK(greedy["warnings"].empty());
  CHECK(greedy["verify"]["wrong_elements"] == 0);
  CHECK(greedy["verify"]["replicas_bitwise_equal"] == true);
  // Merging off: two all_reduces; the groups of D straddle nodes differently, the replicas
  // differ, and a warning says so.
  Json apart = json_of(args + " --planner greedy --no-merge");
  CHECK(apart["comm_counts"]["all_reduce"] == 2);
  CHECK(apart["total_cost_us"].get<double>() > greedy["total_cost_us"].get<double>());
  CHECK(apart["verify"]["wrong_elements"] == 0);
  CHECK(apart["verify"]["replicas_bitwise_equal"] == false);
  REQUIRE(apart["warnings"].size() == 1);
  CHECK(apart["warnings"][0]["reason"] == "divergent_replicas");
  CHECK(apart["warnings"][0]["mesh_dims"] == Json({2}));
  CHECK(has(cli_output("redistribute " + args + " --planner greedy --no-merge"),
            "# warning divergent_replicas (mesh dims D): Replicas may differ bitwise"));
}

TEST_CASE("dtplan redistribute: the table says where a greedy merge costs more") {
  const std::string args =
      "--mesh 2,8 --names A,B --flatten A,B --shape 65536 --from 'P(sum),P(sum)' --to R,R";
  Json merged = json_of(args);
  Json apart = json_of(args + " --no-merge");
  CHECK(merged["total_cost_us"].get<double>() > apart["total_cost_us"].get<double>());
  REQUIRE(merged["warnings"].size() == 1);
  CHECK(merged["warnings"][0]["reason"] == "merge_costs_more");
  CHECK(has(cli_output("redistribute " + args),
            "# warning merge_costs_more (mesh dims A,B): The all_reduce merged on flattened mesh "
            "\"A_B\""));
}

}  // namespace
}  // namespace dtplan::testing
