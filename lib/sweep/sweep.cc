#include "sweep/sweep.h"

#include <algorithm>
#include <numeric>

#include "core/strings.h"
#include "sweep/ranking.h"

namespace dtplan::sweep {

namespace {

// One candidate's evaluation as a point: kUnsupported is an infeasible evaluation whose note is
// the message; other errors, and evaluations that break check_evaluation(), are the point's error.
core::Result<MeshEvaluation> evaluate_one(const MeshEvaluator& evaluator, const MeshCandidate& c) {
  auto e = evaluator.evaluate(c);
  if (!e.ok()) {
    if (e.error().kind != core::ErrorKind::kUnsupported) return e.error();
    MeshEvaluation infeasible;
    infeasible.feasible = false;
    infeasible.note = e.error().message;
    return infeasible;
  }
  DTPLAN_CHECK(check_evaluation(*e, "evaluation"));  // the row names the mesh
  return std::move(*e);
}

SweepRow make_row(const SweepSetup& setup, const MeshCandidate& c, PointOutcome outcome) {
  SweepRow row{c, std::move(outcome.evaluation), true, tp_within_node(c, setup.gpus_per_node)};
  row.error = std::move(outcome.error);
  if (!row.error.empty()) {
    row.evaluation = MeshEvaluation{};
    row.evaluation.feasible = false;
    return row;
  }
  row.fits_memory = fits_memory(row.evaluation.memory_bytes_per_rank, setup.memory_limit_bytes);
  return row;
}

}  // namespace

std::string candidate_label(const MeshCandidate& candidate) {
  return "mesh " + candidate_text(candidate);
}

core::Result<SweepResult> run_sweep(const SweepSetup& setup,
                                    const std::vector<MeshCandidate>& candidates,
                                    const MeshEvaluator& evaluator, const SweepOptions& options) {
  RunPointsOptions ro;
  ro.threads = options.threads;
  // Meshes of more dims first (they have more strategies per op and take longer to plan), so
  // that the last ones the threads take are short and no thread idles long at the end. The rows
  // keep the candidate order whatever the order they are evaluated in.
  ro.order.resize(candidates.size());
  std::iota(ro.order.begin(), ro.order.end(), std::size_t{0});
  std::stable_sort(ro.order.begin(), ro.order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].shape.size() > candidates[b].shape.size();
  });
  ro.skip.resize(candidates.size());
  for (std::size_t i = 0; i < options.recorded.size() && i < candidates.size(); ++i) {
    ro.skip[i] = options.recorded[i].has_value();
  }
  if (options.on_progress) {
    ro.on_progress = [&](const PointProgress& p) {
      options.on_progress({p.done, p.total, &candidates[p.index], p.index, p.outcome});
    };
  }
  ThreadRunner threads;
  PointRunner& runner = options.runner != nullptr ? *options.runner : threads;
  DTPLAN_TRY(std::vector<PointOutcome> outcomes,
             runner.run(
                 candidates.size(),
                 [&](std::size_t i) { return evaluate_one(evaluator, candidates[i]); }, ro));
  SweepResult result{setup, {}};
  result.rows.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    PointOutcome o = ro.skip[i] ? *options.recorded[i] : std::move(outcomes[i]);
    result.rows.push_back(make_row(setup, candidates[i], std::move(o)));
  }
  rank_rows(result.rows);
  return result;
}

}  // namespace dtplan::sweep
