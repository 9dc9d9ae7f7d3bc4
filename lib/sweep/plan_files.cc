#include "sweep/plan_files.h"

#include "core/strings.h"

namespace dtplan::sweep {

std::string plan_file_name(const MeshCandidate& candidate) {
  std::string name = shape_label(candidate.shape) + "_" + core::join(candidate.names, "-");
  if (candidate.batch) name += "_b" + std::to_string(*candidate.batch);
  if (candidate.grad_accum) name += "_ga" + std::to_string(*candidate.grad_accum);
  if (candidate.checkpoint) {
    name += "_" + std::string(core::checkpoint_policy_name(*candidate.checkpoint));
  }
  if (candidate.parallelize != Parallelize::kOptimal) {
    name += "_" + std::string(parallelize_name(candidate.parallelize));
  }
  return name + ".json";
}

}  // namespace dtplan::sweep
