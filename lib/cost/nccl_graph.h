#pragma once
// The channel graphs NCCL's topology search would build for a group (channels x per-channel
// bandwidth inside and across nodes), derived from the hardware profile and the group topology.
// NCCL's tuning model reads only these three numbers per algorithm, so this is where the node
// structure of a group (one node, one GPU per node, a partial node, a flattened multi-node group)
// turns into bandwidth. The rules emulate src/graph/search.cc
// (docs/reference/collectives.md §2.3, §3.3); they are written out in nccl_graph.cc and
// reproduce the typical graph results: DGX H100 one node 12 ch x 30 GB/s (after duplication),
// >= 3 nodes 8 ch x 48; DGX A100 one node 12 x 20, >= 3 nodes 8 x 24.

#include <cstdint>

#include "cost/group_topology.h"
#include "cost/hardware.h"

namespace dtplan::cost {

struct NcclGraph {
  std::int32_t channels = 0;  // 0: the pattern is not available for this group
  double bw_intra = 0;        // GB/s per channel inside a node
  double bw_inter = 0;        // GB/s per channel across nodes
  bool operator==(const NcclGraph&) const = default;
};

struct NcclGraphs {
  NcclGraph ring;                     // Ring (and PAT)
  NcclGraph tree;                     // Tree
  NcclGraph nvls;                     // NVLS and NVLSTree (channels = 0 without NVLS)
  NcclGraph collnet;                  // CollNetDirect / CollNetChain (channels = 0 without CollNet)
  std::int32_t runtime_channels = 0;  // comm->nChannels (the ring plateau threshold uses it)
  bool same_channels = false;         // every ring channel visits the ranks in the same order
  bool operator==(const NcclGraphs&) const = default;
};

// The graphs for a group. @pre validate(profile) passed; topology.max_ranks_per_node <=
// profile.node.gpus_per_node; topology.ranks >= 2.
NcclGraphs nccl_graphs(const HardwareProfile& profile, const GroupTopology& topology);

// The largest ladder value <= limit (0 if none). Example: ladder_floor(SM90 intra, 46.35) == 40.
double ladder_floor(std::span<const double> ladder, double limit);

}  // namespace dtplan::cost
