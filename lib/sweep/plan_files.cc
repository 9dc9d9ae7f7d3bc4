#include "sweep/plan_files.h"

#include "core/strings.h"

namespace dtplan::sweep {

std::string plan_file_name(const MeshCandidate& candidate) {
  return shape_label(candidate.shape) + "_" + core::join(candidate.names, "-") + ".json";
}

}  // namespace dtplan::sweep
