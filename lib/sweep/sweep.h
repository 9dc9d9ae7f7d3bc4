#pragma once
// run_sweep(): evaluates every mesh candidate on a pool of threads and ranks the results.
// Each worker takes the next unevaluated candidate (an atomic counter) and writes its row into
// that candidate's slot; the rows are then ranked by the written rule of ranking.h, so the
// result is identical for any thread count.
//
//   auto cands = enumerate_candidates({.world = 64, .dims = {1, 2, 3}}).value();
//   SweepResult r = run_sweep(setup, cands, evaluator, {.threads = 2}).value();
//   r.rows[0].mesh.shape  // the best mesh, e.g. {8, 8}
//
// Errors: an evaluator error of kind kUnsupported becomes an infeasible row whose note is the
// message; any other error stops the sweep (workers take no candidate after it) and is returned
// with the mesh named ("mesh 8x8 (dp,tp): ..."). When several candidates fail, the error of the
// first in candidate order is returned, whatever the threads did.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/result.h"
#include "sweep/evaluator.h"
#include "sweep/mesh_candidates.h"
#include "sweep/sweep_result.h"

namespace dtplan::sweep {

struct SweepProgress {
  std::size_t done = 0;  // candidates evaluated so far (this one included)
  std::size_t total = 0;
  const MeshCandidate* last = nullptr;  // the one just evaluated
};

struct SweepOptions {
  std::int32_t threads = 0;  // 0: one per hardware thread; capped by the candidate count
  // Called after each candidate, one call at a time (under a lock), from the worker threads.
  std::function<void(const SweepProgress&)> on_progress{};
};

// The thread count run_sweep uses for `requested` threads and `candidates` candidates.
std::int32_t sweep_threads(std::int32_t requested, std::size_t candidates);

// @pre setup.world and setup.gpus_per_node describe the candidates (used for tp_within_node).
// @post result.rows is a permutation of one row per candidate, ranked (ranking.h);
//   result.setup == setup.
// Errors: kBadInput for threads < 0 ("--threads"), evaluator errors as above, kInternal when an
// evaluation breaks check_evaluation().
core::Result<SweepResult> run_sweep(const SweepSetup& setup,
                                    const std::vector<MeshCandidate>& candidates,
                                    const MeshEvaluator& evaluator,
                                    const SweepOptions& options = {});

// How errors and notes name a candidate: "mesh 8x8 (dp_shard,tp)", followed by the training
// choices it sets and a plan other than the optimum ("mesh 8x8 (dp_shard,tp) batch 256
// grad-accum 2 checkpoint full torchtitan").
std::string candidate_label(const MeshCandidate& candidate);

}  // namespace dtplan::sweep
