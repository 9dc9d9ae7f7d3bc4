#pragma once
// Helpers for the tests of lib/redist: mesh contexts with flattened meshes, planners on the
// source tree's hardware profiles, specs and states from text, hand-built step lists
// ("0:P(sum)->R 2:P(sum)->R", "0,2:P(sum)->R@A_C"), and random requests for property tests.

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "placement/tensor_spec.h"
#include "redist/cost_model.h"
#include "redist/mesh_context.h"
#include "redist/planner.h"
#include "redist/redist_state.h"
#include "redist/transform.h"

namespace dtplan::testing {

using Ints = std::vector<std::int64_t>;
using Names = std::vector<std::string>;

// A root mesh with names (may be empty) and the given flattened dim sets; REQUIREs success.
redist::MeshContext mesh_context(Ints shape, Names names, std::vector<Names> flatten = {},
                                 std::int64_t gpus_per_node = 8);

// A planner on the h100-dgx profile.
std::unique_ptr<redist::Planner> make_planner(redist::MeshContext ctx, redist::CostModelKind model,
                                              redist::WarningSink* sink = nullptr);

// A state from placement-list text with [k] suffixes ("S(0)[1],S(0)[0],R").
redist::RedistState state_of(const std::string& text);

// Steps separated by spaces: "DIMS:SRC->DST[@FLAT][/SCALE]" with DIMS comma-separated, e.g.
// "1:S(0)->R 0:S(0)->R" (kinds follow from the placements).
std::vector<redist::Transform> steps_of(const std::string& text);

// Every placement of a mesh dim for specs of `rank` tensor dims: R, P(sum), S(0..rank-1).
std::vector<placement::Placement> basic_placements(int rank);

// Random specs (same shape and dtype) src and dst on random mesh sizes of 1-4 dims, with nested,
// strided and uneven shards, and random dim names "d0".."d3".
struct RandomRequest {
  Ints mesh;
  placement::TensorSpec src;
  placement::TensorSpec dst;
  std::string describe() const;
};
RandomRequest random_request(std::mt19937_64& rng, bool strided, bool shuffle_order);

// 0-2 distinct random sets of at least two of `names` to flatten (none for fewer than 2 names).
std::vector<Names> random_flatten_sets(std::mt19937_64& rng, const Names& names);

// The same request with dst's Partial placements replaced where they would be unsupported
// (shard -> P, P(x) -> P(y)) by Replicate.
placement::TensorSpec supported_dst(const placement::TensorSpec& src,
                                    const placement::TensorSpec& dst, const Ints& mesh);

// Every rank's local shape after the plan's steps, simulated step by step from src's local
// shapes independently of the planner's bookkeeping: a gather sums the pieces of its group (the
// ranks differing only on the step's mesh dims), a scatter or chunk splits the target dim with
// torch.chunk (or the strided rule) over the group, a flattened one over the whole group with the
// row-major index of the merged dims.
std::map<std::vector<std::int64_t>, Ints> rank_shapes_after(const redist::RedistPlan& plan);

// "" when rank_shapes_after(plan) is dst's local shape on every rank, else the first mismatch.
std::string check_rank_shapes(const redist::RedistPlan& plan, const Ints& mesh);

}  // namespace dtplan::testing
