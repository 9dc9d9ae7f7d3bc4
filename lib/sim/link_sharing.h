#pragma once
// LinkMap: the contention model of the step simulator. Every rank's GPU has two shared links:
//   - its NVLink port (NVSwitch is non-blocking, so only traffic of the same GPU shares it);
//   - its NIC: GPU g (local index on its node) uses NIC floor(g * k / G) of its node, with G GPUs
//     and k = min(NICs per node, G) NICs per node (the GPU's own NIC on a rail-optimised DGX;
//     GPUs share a NIC when a node has fewer NICs than GPUs). Without a hardware profile k = G.
// A collective instance (one process group running one collective) uses the NICs of its
// members when the group spans several nodes, and the NVLink port of every member that shares
// its node with another member. Its time without contention is the plan's cost_us: a latency
// part (the cost model's latency share, step_program.h) then a bandwidth part.
//
// Sharing rule (docs/reference/collectives.md §3.3, "divide the link bandwidth by the number of
// concurrent flows on the busiest link"): while in its bandwidth part, an instance progresses at
// rate 1 / max over its links of the number of instances in their bandwidth part on that link.
// So two instances that start together on one NIC, each of bandwidth part W alone, both end
// after 2W; if the second joins when the first is halfway, the first ends at 1.5W and the second
// at 2W (processor sharing, re-rated whenever an instance starts or ends its bandwidth part).
// Limits: latency is never stretched; a group is counted once per link however many of its
// members use it (the cost model already prices a group's own use of its links); the slowest
// link paces the whole ring (NCCL's channels on other NICs would keep some speed); instances of
// the sibling groups of one step on a shared NIC slow each other (the cost model prices one
// group alone); compute does not slow communication nor the reverse (no SM contention); the
// network core is non-blocking (no switch or rail congestion); NVLS / SHARP offload is ignored.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cost/hardware.h"
#include "sim/step_program.h"

namespace dtplan::sim {

struct LinkMap {
  std::int32_t links = 0;  // link ids: [0, slots) NVLink ports, then the NICs of each node
  // For partition p and its group g: links_of[p][offsets[p][g] .. offsets[p][g + 1]), ascending.
  std::vector<std::vector<std::int32_t>> offsets;
  std::vector<std::vector<std::int32_t>> links_of;
  // The links of group g of partition p.
  [[nodiscard]] std::span<const std::int32_t> of(std::size_t p, std::int32_t g) const {
    const auto begin = static_cast<std::size_t>(offsets[p][static_cast<std::size_t>(g)]);
    const auto end = static_cast<std::size_t>(offsets[p][static_cast<std::size_t>(g) + 1]);
    return {links_of[p].data() + begin, end - begin};
  }
  bool operator==(const LinkMap&) const = default;
};

// Where each slot's links are: its node (nodes numbered in ascending order of their ranks) and
// its NIC's link id; NVLink port of slot s is link s.
struct SlotLinks {
  std::int32_t links = 0;  // slots + nodes x NICs per node
  std::vector<std::int32_t> node_of;
  std::vector<std::int32_t> nic_of;
};
SlotLinks slot_links(const StepProgram& program,
                     const std::optional<cost::HardwareProfile>& hardware);

// The links of every group of every partition of `program`.
// Example: ranks 0..15, 8 GPUs and 8 NICs per node, the group {0, 8}: the NICs of GPU 0 of both
// nodes, no NVLink; the group {0..7}: the 8 NVLink ports of node 0.
LinkMap make_link_map(const StepProgram& program,
                      const std::optional<cost::HardwareProfile>& hardware);
// The same from the slots' links (slot_links(program, hardware)).
LinkMap make_link_map(const StepProgram& program, const SlotLinks& at);

}  // namespace dtplan::sim
