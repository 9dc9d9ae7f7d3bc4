#include "sim/step_program.h"

#include <doctest/doctest.h>

#include <limits>

#include "support/plan_builder.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::all_reduce;
using testing::PlanBuilder;

std::string error_of(const plan::Plan& plan) {
  auto p = build_step_program(plan, {});
  REQUIRE(!p.ok());
  CHECK(p.error().kind == core::ErrorKind::kBadInput);
  return p.error().message;
}

TEST_CASE("step program: streams, partitions, issue order") {
  PlanBuilder b({2, 2, 2}, {"pp", "dp", "tp"}, 4, {{"dp", "tp"}});
  const auto w = b.param("w", 0);
  const auto x = b.op("x", 1, {});
  const auto y = b.op("y", 2, {x, w}, plan::Phase::kForward, 0);
  b.redistribute(y, 0, {all_reduce({1, 2}, 5, "dp_tp"), all_gather({0}, 3)});
  b.redistribute(y, 1, {all_gather({1}, 4), all_gather({2}, 1)});
  auto prog = build_step_program(b.build(), {});
  REQUIRE(prog.ok());
  std::vector<std::string> streams;
  for (const StreamInfo& s : prog->streams) streams.push_back(s.name);
  CHECK(streams ==
        std::vector<std::string>{"compute", "comm:pp", "comm:dp", "comm:tp", "comm:dp_tp"});
  std::vector<std::string> names;
  for (const Task& t : prog->tasks) names.push_back(t.name);
  // w's chain is issued after w (op 0), x's after x (op 1), both before y.
  CHECK(names == std::vector<std::string>{"w", "y[1].0:all_gather", "y[1].1:all_gather", "x",
                                          "y[0].0:all_reduce", "y[0].1:all_gather", "y"});
  CHECK(prog->op_task == std::vector<std::int32_t>{0, 3, 6});
  CHECK(prog->tasks[6].deps == std::vector<std::int32_t>{5, 2});
  CHECK(prog->tasks[1].prefetched);
  CHECK(!prog->tasks[4].prefetched);
  // The dp_tp groups: {0,1,2,3} and {4,5,6,7}; pp: {i, i + 4}.
  const GroupPartition& flat = prog->partitions[static_cast<std::size_t>(prog->tasks[4].partition)];
  CHECK(flat.size == 4);
  CHECK(flat.members == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(flat.topologies[0] == cost::uniform_topology(1, 4));
  const GroupPartition& pp = prog->partitions[static_cast<std::size_t>(prog->tasks[5].partition)];
  CHECK(pp.members == std::vector<std::int32_t>{0, 4, 1, 5, 2, 6, 3, 7});
  CHECK(pp.topologies[0] == cost::uniform_topology(2, 1));
  CHECK(pp.group_of == std::vector<std::int32_t>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("step program: the prefetch gate follows the depth in blocks") {
  // Blocks: [a] (layer -1), [f0] (layer 0), [f1] (layer 1), [f2] (layer 2); w2 feeds f2.
  PlanBuilder b({2}, {"dp"}, 2);
  const auto w2 = b.param("w2", 2);
  const auto a = b.op("a", 1, {});
  const auto f0 = b.op("f0", 1, {a}, plan::Phase::kForward, 0);
  const auto f1 = b.op("f1", 1, {f0}, plan::Phase::kForward, 1);
  const auto f2 = b.op("f2", 1, {f1, w2}, plan::Phase::kForward, 2);
  b.redistribute(f2, 1, {all_gather({0}, 1)});
  const plan::Plan plan = b.build();
  auto gate = [&](std::int32_t depth) {
    TimelineOptions o;
    o.prefetch_depth = depth;
    auto prog = build_step_program(plan, o);
    REQUIRE(prog.ok());
    for (const Task& t : prog->tasks) {
      if (t.kind == TaskKind::kCollective) {
        return t.gate < 0 ? -1 : prog->tasks[static_cast<std::size_t>(t.gate)].op;
      }
    }
    FAIL("no collective");
    return -2;
  };
  CHECK(gate(0) == f1);  // issued when f2's block is reached
  CHECK(gate(1) == f0);  // when f1's block starts
  CHECK(gate(2) == a);   // when f0's block starts
  CHECK(gate(3) == -1);  // block 0 starts right after the parameter
  CHECK(gate(9) == -1);
  CHECK(gate(-1) == -1);
}

TEST_CASE("step program: one-rank groups are skipped, a local-only chain runs on compute") {
  PlanBuilder b({1, 4}, {"pp", "dp"}, 4);
  const auto x = b.op("x", 1, {});
  const auto y = b.op("y", 1, {x});
  b.redistribute(y, 0, {all_gather({0}, 3), testing::local_chunk(1, 2)});
  auto prog = build_step_program(b.build(), {});
  REQUIRE(prog.ok());
  REQUIRE(prog->tasks.size() == 3);
  CHECK(prog->tasks[1].name == "y[0].1:local_chunk");
  CHECK(prog->tasks[1].stream == 0);
  CHECK(prog->streams.size() == 1);
}

TEST_CASE("step program: errors name the input") {
  PlanBuilder b({2, 2}, {"dp", "tp"}, 2);
  const auto x = b.op("x", 1, {});
  const auto y = b.op("y", 1, {x});
  b.redistribute(y, 0, {all_gather({1}, 3)});
  plan::Plan good = b.build();
  REQUIRE(build_step_program(good, {}).ok());

  plan::Plan p = good;
  p.ops[1].inputs = {1};
  CHECK(error_of(p) == "ops[1] 'y': inputs[0] = 1 is not an earlier op");
  p = good;
  p.ops[0].compute_us = -1;
  CHECK(error_of(p).find("ops[0] 'x': compute_us: cost must be finite") == 0);
  p = good;
  p.redistributions[0].plan.steps[0].cost_us = std::numeric_limits<double>::infinity();
  CHECK(error_of(p).find("redistributions[0].steps[0]: cost must be finite") == 0);
  p = good;
  p.redistributions[0].slot = 3;
  CHECK(error_of(p) == "redistributions[0]: slot 3 of 'y' is not fed by op 0");
  p = good;
  p.redistributions[0].plan.steps[0].transform.mesh_dims = {2};
  CHECK(error_of(p).find("redistributions[0].steps[0]: mesh dims must be") == 0);
  p = good;
  p.redistributions[0].plan.steps[0].group_size = 4;
  CHECK(error_of(p) ==
        "redistributions[0].steps[0]: group_size 4 but its mesh dims make groups of 2");
  p = good;
  p.redistributions[0].plan.steps[0].transform.flattened_mesh = "dp_tp";
  CHECK(error_of(p) ==
        "redistributions[0].steps[0]: the mesh has no flattened mesh 'dp_tp' of these mesh dims");
  p = good;
  p.redistributions.push_back(p.redistributions[0]);
  CHECK(error_of(p) == "redistributions[1]: a second redistribution for slot 0 of 'y'");
  p = good;
  p.mesh.gpus_per_node = 0;
  CHECK(!build_step_program(p, {}).ok());
}

}  // namespace
}  // namespace dtplan::sim
