#pragma once
// `dtplan sweep --resume DIR`: the sweep's fingerprint, the points recorded in DIR
// (sweep/resume_store.h) and the recording of each point as it finishes.
//
// The fingerprint is what makes two sweeps the same: dtplan's version, the setup the reports print
// (model, layers, hardware, world, GPUs per node, dims, memory limit, evaluator), a hash of the
// model and hardware files' text, and the value of every option of the command line (given or
// default) except those that change no result: --csv, --html, --plans, --json, --quiet,
// --threads, --resume. A point's key is its plan file name without ".json" ("8x8_dp-tp").

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "sweep/resume_store.h"
#include "sweep/sweep.h"

namespace dtplan::cli {

struct SweepResume {
  std::optional<sweep::ResumeStore> store;                   // none without --resume
  std::vector<std::string> keys;                             // per candidate
  std::vector<std::optional<sweep::PointOutcome>> recorded;  // per candidate
  std::size_t resumed = 0;                                   // recorded ones
};

sweep::Fingerprint sweep_fingerprint(const CLI::App& app, const sweep::SweepSetup& setup);

// Opens DIR (nothing when `dir` is empty) and loads the points recorded there. Errors: those of
// ResumeStore::open and load ("--resume DIR: recorded for a different sweep (FIELD)", exit 2).
core::Result<SweepResume> open_sweep_resume(const std::string& dir, const CLI::App& app,
                                            const sweep::SweepSetup& setup,
                                            const std::vector<sweep::MeshCandidate>& candidates);

// Records a finished point (not a failed one) in the store, if there is one.
core::Status record_point(const SweepResume& resume, const sweep::SweepProgress& progress);

// "# resumed N of M points from DIR\n", the line on stderr that says what a resumed sweep reused.
std::string resumed_line(const SweepResume& resume);

// The exit code and stderr line of a sweep with failed points (SweepRow::error): 0 and nothing
// when none failed, else 3 after "dtplan sweep: error: N of M points failed; first: LABEL:
// MESSAGE" (the first failed candidate in candidate order).
int report_failed_points(const sweep::SweepResult& result,
                         const std::vector<sweep::MeshCandidate>& candidates);

}  // namespace dtplan::cli
