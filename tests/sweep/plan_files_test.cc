#include "sweep/plan_files.h"

#include <doctest/doctest.h>

#include <set>

#include "support/mesh_gen.h"

namespace dtplan::sweep {
namespace {

TEST_CASE("plan files: names from the candidate, unique over a sweep's candidates") {
  CHECK(plan_file_name({{8, 8}, {"dp_shard", "tp"}, {}}) == "8x8_dp_shard-tp.json");
  CHECK(plan_file_name({{2, 4, 8}, {"dp_shard", "cp", "tp"}, {}}) == "2x4x8_dp_shard-cp-tp.json");
  CHECK(plan_file_name({{64}, {"dp_shard"}, {}}) == "64_dp_shard.json");
  MeshCandidate c{{8, 8}, {"dp_shard", "tp"}, {}};
  c.batch = 256;
  c.grad_accum = 2;
  c.checkpoint = core::CheckpointPolicy::kFull;
  c.parallelize = Parallelize::kTorchtitan;
  CHECK(plan_file_name(c) == "8x8_dp_shard-tp_b256_ga2_full_torchtitan.json");
  const auto candidates = testing::ok(enumerate_candidates(
      {.world = 64,
       .roles = {.dp_replicate = {1, 2}},
       .batches = {8, 16},
       .grad_accums = {1, 2},
       .checkpoints = {core::CheckpointPolicy::kNone, core::CheckpointPolicy::kFull},
       .parallelize = {Parallelize::kOptimal, Parallelize::kTorchtitan}}));
  std::set<std::string> names;
  for (const MeshCandidate& m : candidates) names.insert(plan_file_name(m));
  CHECK(names.size() == candidates.size());
}

}  // namespace
}  // namespace dtplan::sweep
