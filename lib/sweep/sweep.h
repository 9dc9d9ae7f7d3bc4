#pragma once
// run_sweep(): evaluates every mesh candidate with a PointRunner (point_runner.h; by default a
// pool of threads in this process) and ranks the results. Each point's outcome goes into that
// candidate's slot; the rows are then ranked by the written rule of ranking.h, so the result is
// identical for any thread count or runner.
//
//   auto cands = enumerate_candidates({.world = 64, .dims = {1, 2, 3}}).value();
//   SweepResult r = run_sweep(setup, cands, evaluator, {.threads = 2}).value();
//   r.rows[0].mesh.shape  // the best mesh, e.g. {8, 8}
//
// Errors: an evaluator error of kind kUnsupported becomes an infeasible row whose note is the
// message; any other error (or an evaluation that breaks check_evaluation()) becomes a row whose
// `error` is the message, ranked last (ranking.h), and the other candidates go on.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/result.h"
#include "sweep/evaluator.h"
#include "sweep/mesh_candidates.h"
#include "sweep/point_runner.h"
#include "sweep/sweep_result.h"

namespace dtplan::sweep {

struct SweepProgress {
  std::size_t done = 0;                 // candidates evaluated so far (this one included)
  std::size_t total = 0;                // candidates evaluated in this run (recorded ones excluded)
  const MeshCandidate* last = nullptr;  // the one just evaluated
  std::size_t index = 0;                // its index in the candidates
  const PointOutcome* outcome = nullptr;  // its outcome (to record it, --resume)
};

struct SweepOptions {
  std::int32_t threads = 0;  // 0: one per hardware thread; capped by the candidate count
  // Called after each candidate, one call at a time (under a lock), from the worker threads.
  std::function<void(const SweepProgress&)> on_progress{};
  // Who evaluates the candidates; nullptr: a ThreadRunner.
  PointRunner* runner = nullptr;
  // recorded[i]: candidate i's outcome is known (a resumed sweep) and is not evaluated again.
  std::vector<std::optional<PointOutcome>> recorded{};
};

// @pre setup.world and setup.gpus_per_node describe the candidates (used for tp_within_node).
// @post result.rows is a permutation of one row per candidate, ranked (ranking.h);
//   result.setup == setup.
// Errors: kBadInput for threads < 0 ("--threads"); the runner's own errors.
core::Result<SweepResult> run_sweep(const SweepSetup& setup,
                                    const std::vector<MeshCandidate>& candidates,
                                    const MeshEvaluator& evaluator,
                                    const SweepOptions& options = {});

// How errors and notes name a candidate: "mesh 8x8 (dp_shard,tp)", followed by the training
// choices it sets and a plan other than the optimum ("mesh 8x8 (dp_shard,tp) batch 256
// grad-accum 2 checkpoint full torchtitan").
std::string candidate_label(const MeshCandidate& candidate);

}  // namespace dtplan::sweep
