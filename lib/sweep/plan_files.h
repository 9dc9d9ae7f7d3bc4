#pragma once
// The plan files of `dtplan sweep --plans DIR`: one per usable mesh, in the format `dtplan plan
// --out` writes (plan/plan_io.h), named from the mesh alone so that the same sweep always writes
// the same names and `dtplan compare DIR/a.json DIR/b.json` can be run on any two of them:
//
//   plan_file_name({{8, 8}, {"dp", "tp"}, ...})          -> "8x8_dp-tp.json"
//   plan_file_name({{2, 4, 8}, {"dp", "cp", "tp"}, ...}) -> "2x4x8_dp-cp-tp.json"
//
// Names are unique within a sweep: candidates differ in shape or names (mesh_candidates.h), and
// a sweep names its dims by role (dp, cp, tp), so "_" and "-" separate unambiguously.

#include <string>

#include "sweep/mesh_candidates.h"

namespace dtplan::sweep {

// "<shape_label>_<names joined by '-'>.json".
std::string plan_file_name(const MeshCandidate& candidate);

}  // namespace dtplan::sweep
