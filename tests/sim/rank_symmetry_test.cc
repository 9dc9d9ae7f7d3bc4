// Rank symmetry: which shifts are symmetries, the quotient they give, and that simulating the
// quotient gives every rank's timeline of the full run.
#include "sim/rank_symmetry.h"

#include <doctest/doctest.h>

#include <random>

#include "sim/timeline.h"
#include "support/plan_builder.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::MeshCase;
using testing::PlanBuilder;

// A plan with one all-gather on every dim of `m` and one on flatten[0], if any.
plan::Plan one_per_dim(const MeshCase& m) {
  PlanBuilder b(m.shape, m.names, m.gpus_per_node, m.flatten);
  const auto x = b.op("x", 5, {});
  std::vector<std::int32_t> in(m.shape.size() + (m.flatten.empty() ? 0 : 1), x);
  const auto y = b.op("y", 5, in);
  for (std::size_t d = 0; d < m.shape.size(); ++d) {
    b.redistribute(y, static_cast<std::int32_t>(d), {all_gather({static_cast<int>(d)}, 10)});
  }
  if (!m.flatten.empty()) {
    const auto n = static_cast<std::int32_t>(m.shape.size());
    b.redistribute(y, n, {all_gather({n - 2, n - 1}, 10, m.flatten[0][0] + "_" + m.flatten[0][1])});
  }
  return b.build();
}

std::optional<SlotQuotient> quotient_of(const plan::Plan& plan,
                                        const std::optional<cost::HardwareProfile>& hw = {}) {
  auto program = build_step_program(plan, {});
  REQUIRE(program.ok());
  return quotient_slots(*program, slot_links(*program, hw), make_link_map(*program, hw));
}

TEST_CASE("rank symmetry: the dims strided by whole nodes are the symmetries") {
  SUBCASE("4 x 2 x 4 on 4-GPU nodes: dp and cp; the classes are the GPUs of node 0") {
    // Ranks dp * 8 + cp * 4 + tp; node = rank / 4, local GPU = tp. Shifting dp (stride 8) or cp
    // (stride 4) moves whole nodes; shifting tp changes the local GPU.
    const auto q = quotient_of(one_per_dim({{4, 2, 4}, {"dp", "cp", "tp"}, 4, {{"cp", "tp"}}}));
    REQUIRE(q.has_value());
    CHECK(q->symmetries == 2);
    CHECK(q->program.ranks == std::vector<std::int64_t>{0, 1, 2, 3});
    for (std::size_t s = 0; s < 32; ++s) CHECK(q->rep[s] == static_cast<std::int32_t>(s % 4));
    // Partitions in order of first use: dp, cp, tp, cp_tp. A dp or cp group holds one
    // representative (one GPU on 4 or 2 nodes: its NIC's class); a tp group is node 0 (the 4
    // NVLink ports); a cp_tp group spans 2 nodes: 4 NIC classes and 4 NVLink ports.
    REQUIRE(q->program.partitions.size() == 4);
    const std::vector<std::int64_t> sizes{1, 1, 4, 4};
    const std::vector<std::size_t> links{1, 1, 4, 8};
    for (std::size_t p = 0; p < 4; ++p) {
      CAPTURE(p);
      const GroupPartition& part = q->program.partitions[p];
      CHECK(part.size == sizes[p]);
      CHECK(part.groups() == 4 / sizes[p]);
      CHECK(q->links.offsets[p][1] == static_cast<std::int32_t>(links[p]));
    }
    // Classes of links: the 4 NVLink ports of node 0 and the 4 NICs of a node.
    CHECK(q->links.links == 8);
  }
  SUBCASE("tp of 8 on 4-GPU nodes: dp, and tp shifted by 4 (the other node of its group)") {
    const auto q = quotient_of(one_per_dim({{4, 8}, {"dp", "tp"}, 4, {}}));
    REQUIRE(q.has_value());
    CHECK(q->symmetries == 2);
    CHECK(q->program.ranks == std::vector<std::int64_t>{0, 1, 2, 3});
    for (std::size_t s = 0; s < 32; ++s) CHECK(q->rep[s] == static_cast<std::int32_t>(s % 4));
  }
  SUBCASE("a dim strided by part of a node: shifted by the step that moves whole nodes") {
    // 4 x 2 on 4-GPU nodes: dp has stride 2, so dp shifted by 2 maps rank r to r + 4 mod 8.
    const auto q = quotient_of(one_per_dim({{4, 2}, {"dp", "tp"}, 4, {}}));
    REQUIRE(q.has_value());
    CHECK(q->symmetries == 1);
    CHECK(q->program.ranks == std::vector<std::int64_t>{0, 1, 2, 3});
    // torchtitan's 4-D mesh with cp of stride 4 on 8-GPU nodes: dp_replicate, dp_shard and cp
    // shifted by 2; the classes are the 8 GPUs of node 0 (tp and cp's parity).
    const auto q4 =
        quotient_of(one_per_dim({{2, 2, 8, 4}, {"dp_replicate", "dp_shard", "cp", "tp"}, 8, {}}));
    REQUIRE(q4.has_value());
    CHECK(q4->symmetries == 3);
    CHECK(q4->program.ranks == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
    for (std::size_t s = 0; s < 128; ++s) CHECK(q4->rep[s] == static_cast<std::int32_t>(s % 8));
  }
  SUBCASE("no shift moves whole nodes: no quotient") {
    CHECK_FALSE(quotient_of(one_per_dim({{8}, {"dp"}, 8, {}})).has_value());
    CHECK_FALSE(quotient_of(one_per_dim({{3, 2}, {"dp", "tp"}, 4, {}})).has_value());
  }
}

TEST_CASE("rank symmetry: groups that share a NIC stay apart in the quotient") {
  // 2 x 8 on 8-GPU nodes with 2 NICs: the dp groups {i, i + 8} cross the nodes and GPUs 0-3
  // share NIC 0. Shifting dp maps node 0 onto node 1 and keeps each GPU's index: a symmetry.
  // Each dp group is its own class, so the 4 on NIC 0's class stay 4 flows there.
  cost::HardwareProfile hw = testing::profile("h100-dgx");
  hw.node.nics_per_node = 2;
  const plan::Plan plan = one_per_dim({{2, 8}, {"dp", "tp"}, 8, {}});
  const auto q = quotient_of(plan, hw);
  REQUIRE(q.has_value());
  CHECK(q->program.ranks.size() == 8);
  const GroupPartition& dp = q->program.partitions[0];
  CHECK(dp.groups() == 8);
  for (std::int32_t g = 0; g < 8; ++g) {
    CAPTURE(g);
    const auto begin = static_cast<std::size_t>(q->links.offsets[0][static_cast<std::size_t>(g)]);
    REQUIRE(q->links.offsets[0][static_cast<std::size_t>(g) + 1] ==
            static_cast<std::int32_t>(begin) + 1);
    // NIC classes follow the 8 NVLink ports: GPUs 0-3 on the first, 4-7 on the second.
    CHECK(q->links.links_of[0][begin] == 8 + g / 4);
  }
  TimelineOptions o;
  o.hardware = hw;
  o.all_ranks = true;
  auto tl = simulate_step(plan, o);
  REQUIRE(tl.ok());
  o.symmetry = false;
  auto full = simulate_step(plan, o);
  REQUIRE(full.ok());
  CHECK(tl->simulated_tasks * 2 == full->simulated_tasks);
  CHECK(tl->step_time_us == full->step_time_us);
  CHECK(tl->ranks == full->ranks);
}

TEST_CASE("rank symmetry: the rank-task cap counts the ranks simulated in step-only runs") {
  // 4 x 2 x 4 on 4-GPU nodes: 32 ranks in 4 classes. A cap of 4 x the tasks lets the step-only
  // run through (4 ranks simulated) but not a full run (every rank's times are kept) nor a run
  // without the classes.
  const plan::Plan plan = one_per_dim({{4, 2, 4}, {"dp", "cp", "tp"}, 4, {{"cp", "tp"}}});
  TimelineOptions o;
  auto tl = simulate_step(plan, o);
  REQUIRE(tl.ok());
  const auto tasks = static_cast<std::int64_t>(tl->program.tasks.size());
  CHECK(tl->simulated_tasks == 4 * tasks);
  CHECK(tl->ranks.size() == 32);
  o.max_rank_tasks = 4 * tasks;
  auto full = simulate_step(plan, o);
  REQUIRE_FALSE(full.ok());
  CHECK(full.error().kind == core::ErrorKind::kUnsupported);
  o.step_only = true;
  auto only = simulate_step(plan, o);
  REQUIRE(only.ok());
  CHECK(only->simulated_tasks == 4 * tasks);
  CHECK(only->step_time_us == tl->step_time_us);
  o.symmetry = false;
  CHECK_FALSE(simulate_step(plan, o).ok());
}

// Every rank's figures and events with the quotient equal the full run's.
void check_same(const plan::Plan& plan, TimelineOptions o) {
  o.all_ranks = true;
  o.symmetry = false;
  auto full = simulate_step(plan, o);
  o.symmetry = true;
  auto fast = simulate_step(plan, o);
  REQUIRE(full.ok());
  REQUIRE(fast.ok());
  CHECK(fast->simulated_tasks < full->simulated_tasks);
  CHECK(fast->step_time_us == full->step_time_us);
  CHECK(fast->critical_rank == full->critical_rank);
  CHECK(fast->exposed_communication_us == full->exposed_communication_us);
  CHECK(fast->ranks == full->ranks);
  CHECK(fast->events == full->events);
  CHECK(fast->critical_path == full->critical_path);
  o.step_only = true;
  auto only = simulate_step(plan, o);
  REQUIRE(only.ok());
  CHECK(only->step_time_us == full->step_time_us);
  CHECK(only->critical_rank == full->critical_rank);
  CHECK(only->ranks[0] == full->ranks[static_cast<std::size_t>(full->critical_rank)]);
}

TEST_CASE("rank symmetry: the quotient's timeline is every rank's, on random plans") {
  const std::vector<MeshCase> meshes = {
      {{2, 4}, {"dp", "tp"}, 4, {}},
      {{2, 2, 2}, {"pp", "dp", "tp"}, 2, {{"dp", "tp"}}},
      {{4, 2, 4}, {"dp", "cp", "tp"}, 4, {{"cp", "tp"}}},
      {{3, 2, 4}, {"dp", "cp", "tp"}, 4, {{"cp", "tp"}}},
      {{4, 8}, {"dp", "tp"}, 4, {{"dp", "tp"}}},
      {{2, 4, 2}, {"dp", "cp", "tp"}, 4, {{"cp", "tp"}}},  // cp shifted by 2
  };
  std::mt19937_64 rng(20261127);
  for (int iter = 0; iter < 72; ++iter) {
    CAPTURE(iter);
    const MeshCase& m = meshes[static_cast<std::size_t>(iter) % meshes.size()];
    const plan::Plan plan = testing::random_plan(rng, m);
    TimelineOptions o;
    o.prefetch_depth = iter % 3 - 1;
    if (iter % 2 == 1) {
      o.hardware = testing::profile("h100-dgx");
      o.hardware->node.nics_per_node = 1 + iter % 4;
    }
    check_same(plan, o);
  }
}

}  // namespace
}  // namespace dtplan::sim
