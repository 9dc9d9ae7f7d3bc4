#pragma once
// The outcome of a sweep, as every report reads it (table, CSV, JSON, HTML): what was asked and
// one row per mesh candidate, best first (ranking.h).
//
//   rows[0]  8x8 (dp,tp)  step 812345.6 us  memory 61.2 GiB  fits
//   rows[1]  64 (dp)      step 901234.5 us  memory 79.0 GiB  fits

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/evaluator.h"
#include "sweep/mesh_candidates.h"

namespace dtplan::sweep {

// What the sweep was asked; reports print it as their header.
struct SweepSetup {
  std::string model;  // model name, e.g. "llama3-8b"
  std::int32_t layers = 0;
  std::string hardware;  // profile name
  std::int64_t world = 1;
  std::int64_t gpus_per_node = 1;
  std::vector<std::int32_t> dims;       // mesh dim counts tried, ascending
  std::int64_t memory_limit_bytes = 0;  // 0: no limit
  std::string evaluator;                // MeshEvaluator::description()
  // What was tried (its world, dims and flatten repeat the fields above): role degrees, the tp
  // rule, and the training choices and plans (lists of one value are not kept: see below).
  CandidateOptions space{};
  // The model's training step, which a candidate's unset choice means (0 / "": a graph model,
  // which has no such options).
  std::int64_t batch = 0;
  std::int64_t seq_len = 0;
  std::int64_t grad_accum = 1;
  std::string checkpoint;
  bool operator==(const SweepSetup&) const = default;
};

struct SweepRow {
  MeshCandidate mesh;
  MeshEvaluation evaluation;
  bool fits_memory = true;     // memory <= limit (or no limit)
  bool tp_within_node = true;  // tp_within_node(mesh, gpus_per_node)
  // Non-empty: evaluating the mesh failed (not infeasible: an error), this is the message; the
  // evaluation is then empty and not feasible.
  std::string error{};
  // A plan exists and fits the memory limit.
  [[nodiscard]] bool usable() const { return evaluation.feasible && fits_memory; }
  bool operator==(const SweepRow&) const = default;
};

// Whether `bytes` per rank fit `limit_bytes` (0: no limit): SweepRow::fits_memory's rule.
inline bool fits_memory(std::int64_t bytes, std::int64_t limit_bytes) {
  return limit_bytes == 0 || bytes <= limit_bytes;
}

// A row's training choices, its own or the setup's where unset.
std::int64_t row_batch(const SweepSetup& setup, const MeshCandidate& c);
std::int64_t row_grad_accum(const SweepSetup& setup, const MeshCandidate& c);
std::string row_checkpoint(const SweepSetup& setup, const MeshCandidate& c);

struct SweepResult {
  SweepSetup setup;
  std::vector<SweepRow> rows;  // ranked, best first
  bool operator==(const SweepResult&) const = default;
};

}  // namespace dtplan::sweep
