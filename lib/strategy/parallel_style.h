#pragma once
// torchtitan's name for a parameter's placements, where one matches (the plan's one-screen
// summary prints it beside the DTensor placements). The rule, per mesh dim by its torchtitan
// role (parse_mesh_role: dp_replicate, dp_shard or dp, cp, tp):
//   Replicate                          nothing (a replicated dim adds no parallelism's name)
//   dp_shard or cp: Shard(0) or        FSDP over that dim (FSDP2 shards every parameter's dim 0,
//     _StridedShard(0, sf)             strided where tp also shards dim 0 and splits first)
//   tp on a 2-D linear weight [out, in]: Shard(0) ColwiseParallel, Shard(1) RowwiseParallel
//   tp on a 2-D embedding [vocab, dim] (a name with "embeddings"): Shard(0) RowwiseParallel,
//     Shard(1) ColwiseParallel (torchtitan's nn.Embedding styles)
//   anything else (Partial, another shard, a dim without a role)  no name: the whole is "-"
// The parts join with " + " in mesh-dim order, FSDP's dims merged into one part; every dim
// Replicate gives "Replicate".
//
//   torchtitan_style("layers.0.attention.wq.weight", 2, {S(0), S(0)}, {"dp", "tp"})
//     == "FSDP(dp) + ColwiseParallel(tp)"
//   torchtitan_style("norm.weight", 1, {S(0), S(0)}, {"dp", "tp"}) == "-"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "placement/placement.h"

namespace dtplan::strategy {

// @pre placements.size() == dim_names.size(); `rank` is the parameter's tensor rank.
// @post "-" when no part of the rule above names a dim's placement.
std::string torchtitan_style(std::string_view name, std::size_t rank,
                             std::span<const placement::Placement> placements,
                             std::span<const std::string> dim_names);

}  // namespace dtplan::strategy
