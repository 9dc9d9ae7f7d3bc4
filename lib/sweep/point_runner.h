#pragma once
// PointRunner: evaluates the points of a sweep, named by index 0..count-1, and returns one
// outcome per index. The runner knows nothing of what a point is: the caller's PointFunction
// evaluates index i. ThreadRunner (here) runs them on a pool of threads in this process; the
// `dtplan sweep` CLI adds one that spreads them over MPI ranks (apps/dtplan/sweep_mpi.h).
//
//   ThreadRunner runner;
//   auto outcomes = runner.run(3, [](std::size_t i) -> core::Result<MeshEvaluation> {
//     if (i == 1) return core::Error::internal("boom");
//     return MeshEvaluation{.step_time_us = 10.0 * i};
//   }, {.threads = 2}).value();
//   outcomes[1].error == "boom"; outcomes[2].evaluation.step_time_us == 20
//
// A point whose function returns an error becomes an outcome with `error` set; the other points
// go on. Outcomes depend only on the function, never on the thread count or the order points
// are taken in (the function must be deterministic and safe to call concurrently).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"
#include "sweep/evaluator.h"

namespace dtplan::sweep {

struct PointOutcome {
  MeshEvaluation evaluation;  // meaningful when error is empty
  std::string error;          // non-empty: the point failed, its message
  bool operator==(const PointOutcome&) const = default;
};

using PointFunction = std::function<core::Result<MeshEvaluation>(std::size_t index)>;

struct PointProgress {
  std::size_t done = 0;                   // points finished in this run, this one included
  std::size_t total = 0;                  // points this run evaluates (count minus skipped ones)
  std::size_t index = 0;                  // the point just finished
  const PointOutcome* outcome = nullptr;  // its outcome
};

struct RunPointsOptions {
  std::int32_t threads = 0;  // threads in this process; 0: one per hardware thread
  // Called after each point, one call at a time, from any thread (a runner over processes calls
  // it in the process that gathers the outcomes only).
  std::function<void(const PointProgress&)> on_progress{};
  // skip[i]: point i is known already (resume) and is not evaluated; shorter than count: the rest
  // are evaluated.
  std::vector<bool> skip{};
  // The order points are handed out in (a permutation of 0..count-1); empty: index order. Long
  // points first keeps threads from idling at the end.
  std::vector<std::size_t> order{};
};

class PointRunner {
 public:
  virtual ~PointRunner() = default;
  // The outcome of every point by index; skipped ones are left default. Errors: kBadInput for
  // threads < 0 ("--threads"); a runner's own failure (not a point's).
  [[nodiscard]] virtual core::Result<std::vector<PointOutcome>> run(
      std::size_t count, const PointFunction& function, const RunPointsOptions& options) = 0;
};

// The points of `options` to evaluate, in hand-out order (order without the skipped ones).
std::vector<std::size_t> points_to_run(std::size_t count, const RunPointsOptions& options);

// Evaluates one point: the function's result, or its error as the outcome's message.
PointOutcome evaluate_point(const PointFunction& function, std::size_t index);

// Points on a pool of threads in this process: each worker takes the next point from a shared
// counter.
class ThreadRunner : public PointRunner {
 public:
  [[nodiscard]] core::Result<std::vector<PointOutcome>> run(
      std::size_t count, const PointFunction& function, const RunPointsOptions& options) override;
};

// The thread count for `requested` threads and `points` points: one per hardware thread for 0,
// capped by the point count, at least 1.
std::int32_t sweep_threads(std::int32_t requested, std::size_t points);

}  // namespace dtplan::sweep
