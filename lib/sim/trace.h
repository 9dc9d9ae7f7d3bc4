#pragma once
// TraceEntry: what a process group records for every group of every collective it runs, in data
// and in cost-only mode alike: enough to price the collective (collective, group, S) and to
// explain its numerics (dtype, op, the NCCL algorithm and the reduction order it implies).
//
//   all_reduce(sum) of a 1 KiB f32 tensor on [0,5,10,...,35] (8 ranks on five 8-GPU nodes) with
//   the h100-dgx profile records
//   {call 0, all_reduce, [0,5,...,35], f32, rank_bytes 1024, nccl_bytes 1024, sum, no root,
//    Tree, tree}

#include <cstdint>
#include <optional>
#include <string>

#include "collective/collective.h"
#include "core/dtype.h"
#include "cost/nccl_constants.h"
#include "sim/collective_call.h"
#include "sim/reduction_order.h"

namespace dtplan::sim {

struct TraceEntry {
  std::int64_t call = 0;  // index of the collective call; the groups of one call share it
  collective::Collective collective = collective::Collective::kAllReduce;
  Group ranks;  // the group, in group-rank order
  core::DType dtype = core::DType::kF32;
  // The buffer one rank passes, as collective.h counts it (all_gather: its input;
  // reduce_scatter: its output; the others: the whole tensor).
  std::int64_t rank_bytes = 0;
  std::int64_t nccl_bytes = 0;                         // S, the nccl-tests size of the collective
  std::optional<ReduceOp> op;                          // reducing collectives only
  std::optional<std::int64_t> root;                    // broadcast only (group rank)
  cost::Algorithm algorithm = cost::Algorithm::kNone;  // what NCCL would run (kNone: 1 rank)
  ReductionOrder order = ReductionOrder::kNone;        // the order of the reduction, if any
  bool operator==(const TraceEntry&) const = default;
};

// "#1 reduce_scatter(avg) f32 on [0,1,2,3]: 1024 B per rank, S 4096 B, Ring, ring order".
std::string describe(const TraceEntry& entry);

}  // namespace dtplan::sim
