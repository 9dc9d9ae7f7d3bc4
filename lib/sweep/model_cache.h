#pragma once
// ModelCache: the model of each training choice a sweep tries (global batch, gradient
// accumulation, activation checkpointing), built once from the model file with the sweep's other
// overrides and shared by every mesh that uses it. Safe to call from several threads: each
// choice is built by the first thread that asks for it, the others wait for it.
//
//   ModelCache cache("configs/models/llama3-405b.json", {.layers = 8});
//   auto m = cache.get(candidate).value();   // candidate.batch 256, grad_accum 2
//   m->llama3->batch == 256

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "core/result.h"
#include "graph/model_io.h"
#include "sweep/mesh_candidates.h"

namespace dtplan::sweep {

class ModelCache {
 public:
  // `overrides` apply to every choice; a candidate's batch, grad_accum and checkpoint replace
  // theirs where set.
  ModelCache(std::string model_file, graph::ModelOverrides overrides)
      : file_(std::move(model_file)), overrides_(std::move(overrides)) {}

  // The model of the candidate's training choice. Errors: graph::load_model's, the same for
  // every caller of one choice (e.g. kBadInput "grad_accum 3 does not divide batch 16").
  core::Result<std::shared_ptr<const graph::Model>> get(const MeshCandidate& candidate);

 private:
  using Key = std::tuple<std::optional<std::int64_t>, std::optional<std::int64_t>,
                         std::optional<core::CheckpointPolicy>>;
  struct Entry {
    std::once_flag once;
    core::Result<std::shared_ptr<const graph::Model>> model{
        core::Error::internal("model not built")};
  };
  std::string file_;
  graph::ModelOverrides overrides_;
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<Entry>> entries_;
};

}  // namespace dtplan::sweep
