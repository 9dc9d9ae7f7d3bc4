#pragma once
// CollectiveCall: one collective as every rank of a mesh dim issues it: the operation and the
// list of disjoint groups (global ranks, in group-rank order) that each run it at once, e.g.
// all_reduce over the groups [[0,1,4,5],[2,3,6,7]] of one mesh dim. Every member passes its
// local tensor; dim 0 is the collective's dim (the executor reshapes and permutes around it):
//   all_gather      [a, ...] -> [n*a, ...]  group-rank-major: rows [g*a, (g+1)*a) from rank g
//   reduce_scatter  [n*b, ...] -> [b, ...]  group rank g keeps the reduction of rows [g*b, ...)
//   all_reduce      [...] -> [...]          every rank the reduction of all
//   all_to_all      [n*b, ...] -> [n*b, ...]  rows [j*b, ...) of rank i go to rank j at [i*b, ...)
//   broadcast       [...] -> [...]          every rank the root's tensor
// All members of a group pass the same dtype and shape (equal splits). 0-d tensors are accepted
// by all_reduce and broadcast only.

#include <cstdint>
#include <string>
#include <vector>

#include "collective/collective.h"
#include "core/result.h"
#include "placement/placement.h"
#include "sim/tensor.h"

namespace dtplan::sim {

using Group = std::vector<std::int64_t>;
using ReduceOp = placement::ReduceOp;

struct CollectiveCall {
  collective::Collective collective = collective::Collective::kAllReduce;
  std::vector<Group> groups;
  ReduceOp op = ReduceOp::kSum;  // all_reduce and reduce_scatter
  std::int64_t root = 0;         // broadcast: the root's group rank, the same in every group
  bool operator==(const CollectiveCall&) const = default;
};

// "[0,1,4,5]".
std::string group_string(const Group& group);

// "all_reduce(sum) on [[0,1],[2,3]]", for messages.
std::string describe(const CollectiveCall& call);

// Checks what does not depend on data: a supported collective, at least one group, no empty
// group, every rank in [0, world_size) and in at most one group of the call, the root inside the
// groups. Errors name the call and the offending rank or group (kBadInput; kUnsupported for
// another collective).
core::Status validate_call(const CollectiveCall& call, std::int64_t world_size);

// The output shape of a member whose input has `shape`, in a group of n ranks. Errors
// (kBadInput, naming `what`) for a 0-d input to all_gather, reduce_scatter or all_to_all, a dim 0
// not divisible by n for reduce_scatter and all_to_all, or an output whose size overflows.
// Example: output_shape(kAllGather, 4, {3, 2}, "rank 0") == {12, 2}.
core::Result<Shape> output_shape(collective::Collective collective, std::int64_t n,
                                 const Shape& shape, std::string_view what);

}  // namespace dtplan::sim
