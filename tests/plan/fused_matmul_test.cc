// plan/fused_matmul.h: the fused collective matmul's time m + (t - 1) x max(m, c), its chunks
// at the kernel floor, the NVLink peer copy from the hardware profile, names, and the per-op
// shares the simulation and the summaries read.

#include "plan/fused_matmul.h"

#include <doctest/doctest.h>

#include <vector>

#include "cost/hardware.h"
#include "plan/plan.h"

namespace dtplan::plan {
namespace {

cost::HardwareProfile nvlink_profile() {
  cost::HardwareProfile p;
  p.node.intra_fabric = cost::IntraFabric::kNvSwitch;
  p.node.nvlink_links_per_gpu = 18;
  p.node.nvlink_link_gbyte_per_s = 20.6;
  p.compute.launch_floor_us = 7;
  return p;
}

TEST_CASE("fused matmul: one chunk exposed, then the slower of chunks and copies") {
  // Chunks hide the copies: 2 + 3 x max(2, 1) = 8 = t x m.
  CHECK(fused_matmul_us(2, 1, 4) == doctest::Approx(8));
  // Copies hide the chunks: 2 + 3 x max(2, 5) = 17 = m + (t - 1) c.
  CHECK(fused_matmul_us(2, 5, 4) == doctest::Approx(17));
  // t = 1: the matmul alone.
  CHECK(fused_matmul_us(2, 5, 1) == doctest::Approx(2));
  // Each chunk is a kernel of its own: max(100 / 4, 7) + max(20 / 4, 7) = 25 + 7.
  const std::vector<double> compute = {100, 20};
  CHECK(chunk_us(compute, 4, 7) == doctest::Approx(32));
}

TEST_CASE("fused matmul: a peer copy moves the shard at the GPU's NVLink bandwidth") {
  // 18 links x 20.6 GB/s = 370.8 GB/s: 370800 bytes in 1 us, 2048 bytes in 0.0055232 us.
  const cost::HardwareProfile p = nvlink_profile();
  CHECK(peer_copy_us(370800, p) == doctest::Approx(1.0));
  CHECK(peer_copy_us(2048, p) == doctest::Approx(2048.0 / 370800.0));
}

TEST_CASE("fused matmul: kind names round trip, unknown names are refused") {
  for (FusedKind k : {FusedKind::kAllGatherMatmul, FusedKind::kMatmulReduceScatter}) {
    CHECK(parse_fused_kind(fused_kind_name(k), "kind").value() == k);
  }
  CHECK(fused_kind_name(FusedKind::kAllGatherMatmul) == "fused_all_gather_matmul");
  const auto bad = parse_fused_kind("fused_mm", "kind");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("unknown fused op 'fused_mm'") != std::string::npos);
}

TEST_CASE("fused matmul: its matmuls share the fused time by their compute, its steps vanish") {
  Plan plan;
  plan.ops.resize(3);
  plan.ops[0].compute_us = 5;
  plan.ops[1].compute_us = 30;
  plan.ops[2].compute_us = 10;
  plan.fused_matmuls.push_back({.kind = FusedKind::kAllGatherMatmul,
                                .matmuls = {1, 2},
                                .collectives = {{0, 1}},
                                .fused_us = 60});
  const FusedIndex index = index_fused(plan);
  CHECK(index.op_us == std::vector<double>{5, 45, 15});
  CHECK(index.absorbs(0, 1));
  CHECK_FALSE(index.absorbs(0, 0));
}

}  // namespace
}  // namespace dtplan::plan
