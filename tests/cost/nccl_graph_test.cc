#include "cost/nccl_graph.h"

#include <doctest/doctest.h>

#include <string>

#include "cost/nccl_constants.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using testing::profile;

double bus(const NcclGraph& g) { return g.channels * g.bw_intra; }

TEST_CASE("nccl graph: the reference's typical graph results") {
  HardwareProfile h100 = profile("h100-dgx");
  HardwareProfile a100 = profile("a100-dgx");
  // DGX H100 one node: 6 ch x 60 duplicated to 12 x 30 = 360 GB/s.
  NcclGraphs one = nccl_graphs(h100, uniform_topology(1, 8));
  CHECK(one.ring == NcclGraph{12, 30, 30});
  CHECK(one.tree == one.ring);
  CHECK(one.runtime_channels == 24);
  CHECK(one.same_channels);
  // >= 3 nodes: one channel per NIC at the 48 GB/s Gen5 path: 8 x 48 = 384 (not duplicated:
  // SM90 with bwIntra < 50 and more than 4 channels).
  NcclGraphs multi = nccl_graphs(h100, uniform_topology(4, 8));
  CHECK(multi.ring == NcclGraph{8, 48, 48});
  CHECK(multi.runtime_channels == 16);
  CHECK_FALSE(multi.same_channels);
  // DGX A100: 12 x 20 = 240 on one node; 8 x 24 = 192 across nodes.
  CHECK(nccl_graphs(a100, uniform_topology(1, 8)).ring == NcclGraph{12, 20, 20});
  CHECK(nccl_graphs(a100, uniform_topology(3, 8)).ring == NcclGraph{8, 24, 24});
  // NVLS on 8 H100: one channel per GPU at the speed whose 8 channels fit in 370.8 GB/s.
  CHECK(one.nvls == NcclGraph{8, 40, 40});
  CHECK(nccl_graphs(a100, uniform_topology(1, 8)).nvls.channels == 0);  // no NVLS on Ampere
}

TEST_CASE("nccl graph: partial nodes and one GPU per node use only their NICs") {
  HardwareProfile h100 = profile("h100-dgx");
  // 2 GPUs per node: 2 NICs -> 2 x 48 = 96 GB/s; the 2-node tree may run NVLink faster.
  NcclGraphs two = nccl_graphs(h100, uniform_topology(4, 2));
  CHECK(bus(two.ring) == doctest::Approx(96));
  // 1 GPU per node: purely NIC-bound, 48 GB/s.
  NcclGraphs one = nccl_graphs(h100, uniform_topology(8, 1));
  CHECK(bus(one.ring) == doctest::Approx(48));
  CHECK(one.nvls.channels == 0);  // NVLS needs two GPUs on a node
  // A node with fewer NICs than GPUs shares them.
  HardwareProfile four = h100;
  four.node.nics_per_node = 4;
  CHECK(bus(nccl_graphs(four, uniform_topology(2, 8)).ring) == doctest::Approx(4 * 48));
  // A single-node group is NVLink-bound no matter how many GPUs it has (NVSwitch).
  CHECK(bus(nccl_graphs(h100, uniform_topology(1, 2)).ring) == doctest::Approx(360));
}

TEST_CASE("nccl graph: other fabrics") {
  HardwareProfile pcie = profile("h100-dgx");
  pcie.node.intra_fabric = IntraFabric::kPcie;
  pcie.node.nvls = false;
  // 48 GB/s of PCIe: two 24 GB/s channels beat one 40 GB/s channel.
  CHECK(nccl_graphs(pcie, uniform_topology(1, 8)).ring == NcclGraph{2, 24, 24});
  // An 800 Gb/s NIC behind a 64 GB/s path carries two 30 GB/s channels (60 > one 48).
  HardwareProfile fast = profile("h100-dgx");
  fast.node.nic_gbit_per_s = 800;
  fast.node.pcie_gbyte_per_s = 64;
  CHECK(nccl_graphs(fast, uniform_topology(4, 8)).ring == NcclGraph{16, 30, 30});
  // Slower than every ladder step: one channel at the link's own rate.
  HardwareProfile slow = profile("h100-dgx");
  slow.node.nvlink_links_per_gpu = 1;
  slow.node.nvlink_link_gbyte_per_s = 1.0;
  CHECK(nccl_graphs(slow, uniform_topology(1, 8)).ring == NcclGraph{1, 1, 1});
}

TEST_CASE("nccl graph: ladders and duplication preserve total bandwidth") {
  CHECK(ladder_floor(intra_speeds(GpuArch::kHopper), 46.35) == 40);
  CHECK(ladder_floor(inter_speeds(GpuArch::kHopper), 48) == 48);
  CHECK(ladder_floor(inter_speeds(GpuArch::kHopper), 46.35) == 45);
  CHECK(ladder_floor(intra_speeds(GpuArch::kAmpere), 2) == 0);
  for (std::string name : {"a100-dgx", "h100-dgx", "h200-dgx", "b200-dgx"}) {
    HardwareProfile p = profile(name);
    for (int nodes = 1; nodes <= 8; ++nodes) {
      for (int g = 1; g <= 8; ++g) {
        if (nodes * g < 2) continue;
        NcclGraphs graphs = nccl_graphs(p, uniform_topology(nodes, g));
        CAPTURE(name);
        CAPTURE(nodes);
        CAPTURE(g);
        CHECK(graphs.ring.channels >= 1);
        if (nodes == 1) {
          CHECK(bus(graphs.ring) <= intra_gbyte_per_s(p.node) + 1e-9);
        } else {
          CHECK(graphs.ring.channels * graphs.ring.bw_inter <=
                local_nics(p.node, g) * nic_path_gbyte_per_s(p.node) + 1e-9);
        }
        // Duplication keeps channels x bandwidth; trees may only raise their NVLink share.
        CHECK(bus(graphs.tree) >= bus(graphs.ring) - 1e-9);
        CHECK(graphs.tree.channels * graphs.tree.bw_inter ==
              doctest::Approx(graphs.ring.channels * graphs.ring.bw_inter));
      }
    }
  }
  // B200: 8 x 90 -> 16 x 45 = 720 GB/s on one node.
  CHECK(nccl_graphs(profile("b200-dgx"), uniform_topology(1, 8)).ring == NcclGraph{16, 45, 45});
}

}  // namespace
}  // namespace dtplan::cost
