#include "sim/link_sharing.h"

#include <doctest/doctest.h>

#include "support/plan_builder.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

using testing::all_gather;
using testing::PlanBuilder;

// The program of a (2, 8) dp x tp plan on two 8-GPU nodes with one dp and one tp all-gather.
StepProgram program() {
  PlanBuilder b({2, 8}, {"dp", "tp"}, 8);
  const auto x = b.op("x", 1, {});
  const auto y = b.op("y", 1, {x, x});
  b.redistribute(y, 0, {all_gather({0}, 1)});
  b.redistribute(y, 1, {all_gather({1}, 1)});
  auto p = build_step_program(b.build(), {});
  REQUIRE(p.ok());
  return std::move(p).value();
}

std::vector<std::int32_t> links(const LinkMap& map, std::size_t part, std::size_t group) {
  const auto& off = map.offsets[part];
  return {map.links_of[part].begin() + off[group], map.links_of[part].begin() + off[group + 1]};
}

TEST_CASE("link map: dp groups use NICs, tp groups NVLink") {
  const StepProgram p = program();
  REQUIRE(p.partitions.size() == 2);
  const LinkMap map = make_link_map(p, std::nullopt);
  CHECK(map.links == 16 + 2 * 8);
  // Partition 0 is dp: group g = {g, g + 8}: GPU g's NIC on node 0 (16 + g) and node 1 (24 + g).
  for (std::size_t g = 0; g < 8; ++g) {
    CHECK(links(map, 0, g) == std::vector<std::int32_t>{16 + static_cast<std::int32_t>(g),
                                                        24 + static_cast<std::int32_t>(g)});
  }
  // tp group 1 = ranks 8..15: their NVLink ports.
  CHECK(links(map, 1, 1) == std::vector<std::int32_t>{8, 9, 10, 11, 12, 13, 14, 15});
  // Two NICs per node: GPUs 0-3 share NIC 0, 4-7 NIC 1.
  cost::HardwareProfile hw = testing::profile("h100-dgx");
  hw.node.nics_per_node = 2;
  const LinkMap two = make_link_map(p, hw);
  CHECK(two.links == 16 + 2 * 2);
  CHECK(links(two, 0, 3) == std::vector<std::int32_t>{16, 18});
  CHECK(links(two, 0, 4) == std::vector<std::int32_t>{17, 19});
}

TEST_CASE("link map: a group with several members on some nodes uses NICs and NVLink") {
  // 6 ranks on 4-GPU nodes: the flattened group {0..5} spans node 0 (4 ranks) and node 1 (2).
  PlanBuilder b({3, 2}, {"dp", "tp"}, 4, {{"dp", "tp"}});
  const auto x = b.op("x", 1, {});
  const auto y = b.op("y", 1, {x});
  b.redistribute(y, 0, {all_gather({0, 1}, 1, "dp_tp")});
  auto p = build_step_program(b.build(), {});
  REQUIRE(p.ok());
  const LinkMap map = make_link_map(*p, std::nullopt);
  // NVLink 0..5, NICs of node 0: 6..9, node 1: 10..13 (ranks 4, 5 -> 10, 11).
  CHECK(links(map, 0, 0) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

}  // namespace
}  // namespace dtplan::sim
