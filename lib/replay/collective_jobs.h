#pragma once
// The distinct collectives of a plan, as `dtplan replay` times them: every step of every
// redistribution that runs a collective on groups of more than one rank and moves at least one
// byte (an empty tensor's steps move nothing and are not timed), merged when it runs the
// same collective (and reduction op) on the same mesh dims (or flattened mesh) with the same dtype
// and per-rank bytes. Each job carries the plan's prediction (the step's cost_us), how often the
// plan runs it, and the process groups of its mesh dims in the order every rank creates them
// (mesh::DeviceMesh::groups, or the flattened mesh's), so that one CollectiveCall runs them all.
// Jobs come in order of first appearance in the plan (redistribution order, then step order).
//
//   plan S(0),R -> R,R on (2,2), f32[16,16]: one job
//     all_gather on mesh dim 0, groups [[0,2],[1,3]], bytes 512 (input), S = 1024, count 1
//
// Timing inputs are 1-D: bytes / element size elements per rank (reduce_scatter: group size
// times that, since its step bytes are the output).

#include <cstdint>
#include <string>
#include <vector>

#include "collective/collective.h"
#include "core/dtype.h"
#include "core/result.h"
#include "cost/group_topology.h"
#include "replay/replay_source.h"
#include "sim/collective_call.h"

namespace dtplan::replay {

struct CollectiveJob {
  collective::Collective collective = collective::Collective::kAllReduce;
  sim::ReduceOp op = sim::ReduceOp::kSum;  // reducing collectives; kSum otherwise
  std::vector<std::int32_t> mesh_dims;     // ascending
  std::string flattened_mesh;              // "" for one mesh dim
  core::DType dtype = core::DType::kF32;
  std::int64_t group_size = 0;
  std::int64_t bytes = 0;       // the plan's per-rank buffer (redist::StepQuery::bytes)
  std::int64_t nccl_bytes = 0;  // S in the nccl-tests convention
  double predicted_us = 0;      // the plan's cost of one run
  std::int64_t count = 0;       // how many steps of the plan run it
  std::vector<sim::Group> groups;
  cost::GroupTopology topology;  // of the first group (with the mesh's GPUs per node)
  std::string first_use;         // "<redistribution label> step <i>"
  bool operator==(const CollectiveJob&) const = default;
};

// The jobs of `source`. Errors (kBadInput, naming the redistribution and step): a step whose
// mesh dims or flattened mesh the mesh lacks, bytes that are not whole elements, an all_to_all
// whose elements do not split into group-size pieces, or the rank map's mesh not rebuilding.
core::Result<std::vector<CollectiveJob>> collect_jobs(const ReplaySource& source);

// The call that runs `job` on every group at once.
sim::CollectiveCall job_call(const CollectiveJob& job);

// The 1-D shape of one member's input.
sim::Shape job_input_shape(const CollectiveJob& job);

// "0,2" or "A,C" (mesh dim names when the mesh has them): how reports name a job's dims.
std::string dims_label(const redist::MeshDescription& mesh, const std::vector<std::int32_t>& dims);

}  // namespace dtplan::replay
