#pragma once
// Plans for the tests of lib/replay: redistribute plans made by the planner, for a given request
// or at random (random meshes of 1-4 dims with random flattened meshes and GPUs per node), as
// replay sources.

#include <optional>
#include <random>
#include <string>

#include "redist/redist_plan.h"
#include "replay/replay_source.h"
#include "support/redist_support.h"

namespace dtplan::testing {

// The plan of src -> dst (placement-list texts) for a tensor on a named mesh with the given
// flattened dim sets; REQUIREs success.
redist::RedistPlan redist_plan(Ints mesh, Names names, std::vector<Names> flatten, Ints shape,
                               core::DType dtype, const std::string& src, const std::string& dst);

// A random supported request planned on a random mesh (the planner's own property-test
// requests); at most `max_world` ranks. nullopt when the request is unsupported or too large.
std::optional<redist::RedistPlan> random_redist_plan(std::mt19937_64& rng, std::int64_t max_world);

}  // namespace dtplan::testing
