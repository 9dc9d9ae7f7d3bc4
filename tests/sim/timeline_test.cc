// Hand-computed timelines: serial, overlapped, prefetch depth, contended, critical path.
#include "sim/timeline.h"

#include <doctest/doctest.h>

#include <string>

#include "cost/collective_model.h"
#include "plan/plan_io.h"
#include "support/plan_builder.h"
#include "support/plan_support.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::PlanBuilder;
using testing::reduce_scatter;

Timeline simulate(const plan::Plan& plan, TimelineOptions options = {}) {
  options.all_ranks = true;
  auto tl = simulate_step(plan, options);
  if (!tl.ok()) FAIL(tl.error().message);
  return std::move(tl).value();
}

std::int32_t task_named(const Timeline& tl, const std::string& name) {
  for (std::size_t t = 0; t < tl.program.tasks.size(); ++t) {
    if (tl.program.tasks[t].name == name) return static_cast<std::int32_t>(t);
  }
  FAIL("no task " << name);
  return -1;
}

// The event of task `name` on `rank`.
TimelineEvent event(const Timeline& tl, const std::string& name, std::int64_t rank = 0) {
  const std::int32_t t = task_named(tl, name);
  for (const TimelineEvent& e : tl.events) {
    if (e.rank == rank && e.task == t) return e;
  }
  FAIL("no event of " << name << " on rank " << rank);
  return {};
}

std::vector<std::string> path_names(const Timeline& tl) {
  std::vector<std::string> names;
  for (const PathEntry& p : tl.critical_path) {
    names.push_back(tl.program.tasks[static_cast<std::size_t>(p.task)].name);
  }
  return names;
}

TEST_CASE("timeline: serial chain, step = sum of its parts") {
  // a (10) -> all_gather on dp (30) -> b (20), 8 ranks on one node: nothing overlaps.
  PlanBuilder b({8}, {"dp"}, 8);
  const auto a = b.op("a", 10, {});
  const auto c = b.op("b", 20, {a});
  b.redistribute(c, 0, {all_gather({0}, 30)});
  const Timeline tl = simulate(b.build());
  CHECK(tl.step_time_us == 60);
  CHECK(tl.compute_us == 30);
  CHECK(tl.communication_us == 30);
  CHECK(tl.exposed_communication_us == 30);
  CHECK(tl.ranks.size() == 8);
  for (const RankSummary& r : tl.ranks) {
    CHECK(r.end_us == 60);
    CHECK(r.idle_us == 0);
    CHECK(r.stream_busy_us == std::vector<double>{30, 30});
  }
  CHECK(event(tl, "b[0].0:all_gather", 5).start_us == 10);
  CHECK(path_names(tl) == std::vector<std::string>{"a", "b[0].0:all_gather", "b"});
  CHECK(tl.critical_path[1].binding == Binding::kData);
  CHECK(tl.critical_path[2].binding == Binding::kData);
  CHECK(tl.program.streams.size() == 2);
  CHECK(tl.program.streams[1].name == "comm:dp");
}

TEST_CASE("timeline: no redistributions, step = sum of compute") {
  PlanBuilder b({2, 2}, {"dp", "tp"}, 2);
  const auto x = b.op("x", 1.5, {});
  const auto y = b.op("y", 2.25, {x});
  b.op("z", 4, {x, y});
  const Timeline tl = simulate(b.build());
  CHECK(tl.step_time_us == 7.75);
  CHECK(tl.exposed_communication_us == 0);
  CHECK(path_names(tl) == std::vector<std::string>{"x", "y", "z"});
}

// w (parameter of layer 0) -> all_gather on dp (ag_us) -> b; a (40) runs first, in block 0.
plan::Plan overlap_plan(double ag_us) {
  PlanBuilder b({8}, {"dp"}, 8);
  const auto w = b.param("w", 0);
  const auto a = b.op("a", 40, {});
  const auto c = b.op("b", 20, {a, w}, plan::Phase::kForward, 0);
  b.redistribute(c, 1, {all_gather({0}, ag_us)});
  return b.build();
}

TEST_CASE("timeline: a prefetched all-gather hides behind compute") {
  for (double ag : {10.0, 30.0, 40.0, 50.0, 75.0}) {
    CAPTURE(ag);
    const Timeline tl = simulate(overlap_plan(ag));
    // Issued at 0 (the parameter is ready and the consumer's block is 1 ahead), so
    // exposed = max(0, ag - 40) and step = 40 + exposed + 20.
    CHECK(event(tl, "b[1].0:all_gather").start_us == 0);
    CHECK(tl.exposed_communication_us == std::max(0.0, ag - 40));
    CHECK(tl.step_time_us == 60 + std::max(0.0, ag - 40));
    CHECK(
        tl.program.tasks[static_cast<std::size_t>(task_named(tl, "b[1].0:all_gather"))].prefetched);
  }
  // Depth 0: issued only when the compute stream reaches b's block, i.e. after a.
  TimelineOptions none;
  none.prefetch_depth = 0;
  const Timeline tl = simulate(overlap_plan(30), none);
  CHECK(event(tl, "b[1].0:all_gather").start_us == 40);
  CHECK(tl.step_time_us == 90);
  CHECK(tl.exposed_communication_us == 30);
  CHECK(path_names(tl) == std::vector<std::string>{"w", "a", "b[1].0:all_gather", "b"});
  CHECK(tl.critical_path[2].binding == Binding::kGate);
}

// L layers: parameters w_i first, then f_i (compute c) in layer i consuming f_{i-1} and w_i
// through an all-gather of a us.
plan::Plan layered_plan(int layers, double c, double a) {
  PlanBuilder b({4}, {"dp"}, 4);
  std::vector<std::int32_t> w;
  for (int i = 0; i < layers; ++i) w.push_back(b.param("w" + std::to_string(i), i));
  std::int32_t prev = -1;
  for (int i = 0; i < layers; ++i) {
    std::vector<std::int32_t> in;
    if (prev >= 0) in.push_back(prev);
    in.push_back(w[static_cast<std::size_t>(i)]);
    prev = b.op("f" + std::to_string(i), c, in, plan::Phase::kForward, i);
    b.redistribute(prev, prev == -1 ? 0 : static_cast<std::int32_t>(in.size()) - 1,
                   {all_gather({0}, a)});
  }
  return b.build();
}

TEST_CASE("timeline: prefetch depth bounds how early all-gathers start") {
  auto step = [](double c, double a, std::int32_t depth) {
    TimelineOptions o;
    o.prefetch_depth = depth;
    return simulate(layered_plan(3, c, a), o).step_time_us;
  };
  // Depth 0: every all-gather waits for the previous layer: 3 (c + a).
  CHECK(step(10, 15, 0) == 75);
  CHECK(step(20, 15, 0) == 105);
  // Depth 1 (FSDP2's default): all-gather i is issued when layer i-1 starts. Communication
  // bound (a > c): the all-gathers run back to back, f2 starts after the third: 3a + c.
  CHECK(step(10, 15, 1) == 55);
  // Compute bound: only the first all-gather is exposed: a + 3c.
  CHECK(step(20, 15, 1) == 75);
  // Unbounded: all issued at 0; the same here (the dp stream is the bottleneck).
  CHECK(step(10, 15, -1) == 55);
  CHECK(step(20, 15, 5) == 75);
  // Hand-computed events at depth 1, c = 10, a = 15: AG0 0-15, AG1 15-30, f0 15-25, AG2 30-45
  // (gated by f0's end 25, queued behind AG1), f1 30-40, f2 45-55.
  TimelineOptions o;
  o.prefetch_depth = 1;
  const Timeline tl = simulate(layered_plan(3, 10, 15), o);
  CHECK(event(tl, "f2[1].0:all_gather").start_us == 30);
  CHECK(event(tl, "f1").start_us == 30);
  CHECK(event(tl, "f2").start_us == 45);
  // Non-increasing in the depth, for random costs (no contention on one stream).
  for (double c : {3.0, 7.0, 12.0}) {
    for (double a : {2.0, 9.0, 20.0}) {
      double last = step(c, a, 0);
      for (std::int32_t d = 1; d <= 3; ++d) {
        const double s = step(c, a, d);
        CHECK(s <= last);
        last = s;
      }
      CHECK(step(c, a, -1) <= last);
    }
  }
}

// Two all-gathers at once: on dp and on tp of a (2, 2) mesh with one GPU per node, so every
// group spans two nodes and every NIC carries one dp and one tp group.
plan::Plan contended_plan(double dp_us, double tp_us, double tp_delay_us) {
  PlanBuilder b({2, 2}, {"dp", "tp"}, 1);
  const auto x = b.op("x", 10, {});
  const auto y = b.op("y", tp_delay_us, {x});
  const auto u = b.op("u", 1, {x, y});
  b.redistribute(u, 0, {all_gather({0}, dp_us)});
  b.redistribute(u, 1, {all_gather({1}, tp_us)});
  return b.build();
}

TEST_CASE("timeline: collectives sharing a NIC share its bandwidth") {
  SUBCASE("start together: both take 2W") {
    const Timeline tl = simulate(contended_plan(30, 30, 0));
    CHECK(event(tl, "u[0].0:all_gather").start_us == 10);
    CHECK(event(tl, "u[0].0:all_gather").end_us == 70);
    CHECK(event(tl, "u[1].0:all_gather", 3).end_us == 70);
    CHECK(tl.step_time_us == 71);
    TimelineOptions off;
    off.contention = false;
    CHECK(simulate(contended_plan(30, 30, 0), off).step_time_us == 41);
  }
  SUBCASE("the second joins halfway: 1.5W and 2W") {
    // dp starts at 10, tp at 25 (y takes 15): dp has 15 left, both at half rate for 30 us,
    // dp ends at 55 and tp (15 done) runs its last 15 alone: 70.
    const Timeline tl = simulate(contended_plan(30, 30, 15));
    CHECK(event(tl, "u[0].0:all_gather").end_us == 55);
    CHECK(event(tl, "u[1].0:all_gather").end_us == 70);
  }
  SUBCASE("unequal sizes: processor sharing") {
    // dp 10, tp 40 from 10: both at half rate until dp ends at 30, tp then has 30 left: 60.
    const Timeline tl = simulate(contended_plan(10, 40, 0));
    CHECK(event(tl, "u[0].0:all_gather").end_us == 30);
    CHECK(event(tl, "u[1].0:all_gather").end_us == 60);
    CHECK(tl.exposed_communication_us == 50);
  }
  SUBCASE("different links: no slowdown") {
    // 2 x 2 on one node of 4 GPUs: dp and tp groups use NVLink; GPU 0 is in both groups, so
    // its NVLink port is shared too.
    PlanBuilder b({2, 2}, {"dp", "tp"}, 4);
    const auto x = b.op("x", 10, {});
    const auto u = b.op("u", 1, {x, x});
    b.redistribute(u, 0, {all_gather({0}, 30)});
    b.redistribute(u, 1, {all_gather({1}, 30)});
    CHECK(simulate(b.build()).step_time_us == 71);
    // dp across nodes (one GPU of each node per group), tp inside a node: NIC vs NVLink.
    PlanBuilder c({2, 2}, {"dp", "tp"}, 2);
    const auto x2 = c.op("x", 10, {});
    const auto u2 = c.op("u", 1, {x2, x2});
    c.redistribute(u2, 0, {all_gather({0}, 30)});
    c.redistribute(u2, 1, {all_gather({1}, 30)});
    CHECK(simulate(c.build()).step_time_us == 41);
  }
}

TEST_CASE("timeline: sibling groups of one step share a node's NIC") {
  // dp x tp = 2 x 8 on two 8-GPU nodes: the 8 dp groups {i, i + 8} each cross the nodes. With
  // 8 NICs per node each has its own NIC; with 2, GPUs 0-3 share NIC 0: 4 groups per NIC, so
  // the bandwidth part takes 4x. The latency part is the NCCL model's share.
  cost::HardwareProfile hw = testing::profile("h100-dgx");
  PlanBuilder b({2, 8}, {"dp", "tp"}, 8);
  const auto x = b.op("x", 5, {});
  const auto y = b.op("y", 5, {x});
  b.redistribute(y, 0, {all_gather({0}, 100)});
  const plan::Plan plan = b.build();
  auto model = cost::make_collective_model(hw, {});
  auto alone =
      model->cost(collective::Collective::kAllGather, 2 << 20, cost::uniform_topology(2, 1));
  REQUIRE(alone.ok());
  const double latency = 100 * alone->latency_us / alone->time_us;
  REQUIRE(latency > 0);
  TimelineOptions o;
  o.hardware = hw;
  Timeline tl = simulate(plan, o);
  CHECK(
      tl.program.tasks[static_cast<std::size_t>(task_named(tl, "y[0].0:all_gather"))].latency_us ==
      doctest::Approx(latency));
  CHECK(tl.step_time_us == doctest::Approx(110));
  o.hardware->node.nics_per_node = 2;
  tl = simulate(plan, o);
  CHECK(tl.step_time_us == doctest::Approx(10 + latency + 4 * (100 - latency)));
}

TEST_CASE("timeline: step_only gives the full run's figures, critical rank included") {
  // dp x tp = 2 x 6 on 8-GPU nodes with one NIC: ranks 0-7 on node 0, 8-11 on node 1. The dp
  // groups {0, 6} and {1, 7} stay on node 0 (NVLink); {2, 8} .. {5, 11} cross and share both
  // NICs (4 at once), so ranks 2-5 and 8-11 end last and the critical rank is 2, not 0.
  cost::HardwareProfile hw = testing::profile("h100-dgx");
  hw.node.nics_per_node = 1;
  PlanBuilder b({2, 6}, {"dp", "tp"}, 8);
  const auto x = b.op("x", 5, {});
  const auto y = b.op("y", 5, {x});
  b.redistribute(y, 0, {all_gather({0}, 100)});
  b.op("z", 7, {y});
  TimelineOptions o;
  o.hardware = hw;
  const plan::Plan uneven = b.build();
  const Timeline full = simulate(uneven, o);
  CHECK(full.critical_rank == 2);
  CHECK(full.ranks[0].end_us < full.step_time_us);
  // The same with a tp all-gather after z: every tp group holds a slow rank, so all end alike.
  const auto w = b.op("w", 3, {b.op("z2", 7, {y})});
  b.redistribute(w, 0, {all_gather({1}, 40)});
  for (const plan::Plan& plan :
       {uneven, b.build(), contended_plan(30, 30, 15), contended_plan(10, 40, 0),
        layered_plan(3, 10, 15), testing::small_model_plan()}) {
    const Timeline all = simulate(plan, o);
    TimelineOptions step = o;
    step.step_only = true;
    auto only = simulate_step(plan, step);
    REQUIRE(only.ok());
    CHECK(only->step_time_us == all.step_time_us);
    CHECK(only->critical_rank == all.critical_rank);
    CHECK(only->compute_us == all.compute_us);
    CHECK(only->communication_us == all.communication_us);
    CHECK(only->exposed_communication_us == all.exposed_communication_us);
    REQUIRE(only->ranks.size() == 1);
    CHECK(only->ranks[0] == all.ranks[static_cast<std::size_t>(all.critical_rank)]);
    CHECK(only->critical_path.empty());
    CHECK(only->events.empty());
  }
}

TEST_CASE("timeline: gradient reduce-scatters overlap the rest of the backward") {
  // Backward of two layers: g1 (30) makes layer 1's gradient, reduce-scattered (25) to its
  // output while g0 (30) runs; g0's reduce-scatter is exposed.
  PlanBuilder b({8}, {"dp"}, 8);
  const auto l = b.op("loss", 10, {});
  const auto g1 = b.op("g1", 30, {l}, plan::Phase::kBackward, 1);
  const auto g0 = b.op("g0", 30, {g1}, plan::Phase::kBackward, 0);
  const auto o1 = b.op("grad1", 0, {g1}, plan::Phase::kBackward, -1, core::OpRole::kOutput);
  const auto o0 = b.op("grad0", 0, {g0}, plan::Phase::kBackward, -1, core::OpRole::kOutput);
  b.redistribute(o1, 0, {reduce_scatter({0}, 25)});
  b.redistribute(o0, 0, {reduce_scatter({0}, 25)});
  const Timeline tl = simulate(b.build());
  CHECK(event(tl, "grad1[0].0:reduce_scatter").start_us == 40);
  CHECK(event(tl, "grad0[0].0:reduce_scatter").start_us == 70);
  CHECK(tl.step_time_us == 95);
  CHECK(tl.exposed_communication_us == 25);
  CHECK(tl.communication_us == 50);
  CHECK(path_names(tl) ==
        std::vector<std::string>{"loss", "g1", "g0", "grad0[0].0:reduce_scatter", "grad0"});
}

TEST_CASE("timeline: stream order and local steps") {
  // Two all-gathers on dp issued in order; the second is ready first but queues (in-order
  // stream). A chain [local_chunk, all_gather] runs its chunk on the dp stream; a local-only
  // chain runs on the compute stream just before its consumer.
  PlanBuilder b({4}, {"dp"}, 4);
  const auto a = b.op("a", 5, {});
  const auto c = b.op("c", 1, {a});
  const auto d = b.op("d", 1, {a, c});
  b.redistribute(d, 0, {testing::local_chunk(0, 2), all_gather({0}, 10)});
  b.redistribute(d, 1, {all_gather({0}, 10)});
  const auto e = b.op("e", 3, {d});
  b.redistribute(e, 0, {testing::local_chunk(0, 4)});
  const Timeline tl = simulate(b.build());
  const Task& chunk =
      tl.program.tasks[static_cast<std::size_t>(task_named(tl, "d[0].0:local_chunk"))];
  CHECK(chunk.kind == TaskKind::kLocal);
  CHECK(tl.program.streams[static_cast<std::size_t>(chunk.stream)].name == "comm:dp");
  CHECK(event(tl, "d[0].0:local_chunk").start_us == 5);
  CHECK(event(tl, "d[0].1:all_gather").start_us == 7);
  CHECK(event(tl, "d[1].0:all_gather").start_us == 17);  // after c (6) and behind d[0]
  CHECK(event(tl, "d").start_us == 27);
  const Task& local =
      tl.program.tasks[static_cast<std::size_t>(task_named(tl, "e[0].0:local_chunk"))];
  CHECK(local.stream == 0);
  CHECK(event(tl, "e[0].0:local_chunk").start_us == 28);
  CHECK(tl.step_time_us == 35);
  CHECK(tl.compute_us == 5 + 1 + 1 + 4 + 3);
}

TEST_CASE("timeline: a checked plan, and the same plan read back from JSON") {
  // small_model_plan: x -> all_gather on A -> y = mm(x, w) -> all_reduce on B -> z = add(y, y);
  // everything is on one chain, so the step is the plan's serial total.
  const plan::Plan plan = testing::small_model_plan();
  REQUIRE(plan::check_plan(plan).ok());
  const Timeline tl = simulate(plan);
  CHECK(tl.step_time_us == doctest::Approx(plan.cost.total_us));
  CHECK(tl.exposed_communication_us ==
        doctest::Approx(plan.cost.communication_us + plan.cost.redistribution_us));
  auto back = plan::read_plan_json(plan::plan_to_json(plan), "plan.json");
  REQUIRE(back.ok());
  CHECK(simulate(*back) == tl);
}

}  // namespace
}  // namespace dtplan::sim
