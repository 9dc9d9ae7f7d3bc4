#pragma once
// The plan files of `dtplan sweep --plans DIR`: one per usable candidate, in the format `dtplan
// plan --out` writes (plan/plan_io.h), named from the candidate alone so that the same sweep
// always writes the same names and `dtplan compare DIR/a.json DIR/b.json` can be run on any two:
//
//   plan_file_name({{8, 8}, {"dp_shard", "tp"}, ...})  -> "8x8_dp_shard-tp.json"
//   the same with batch 256, grad_accum 2, checkpoint full, torchtitan
//                                      -> "8x8_dp_shard-tp_b256_ga2_full_torchtitan.json"
//
// Names are unique within a sweep: candidates differ in shape, names, or a training choice or
// plan that the name then carries (a field the sweep does not vary is not set, so not named).
// Dim names are roles (no '-'), so '-' and the '_b', '_ga' suffixes separate unambiguously.

#include <string>

#include "sweep/mesh_candidates.h"

namespace dtplan::sweep {

// "<shape_label>_<names joined by '-'>[_b<batch>][_ga<grad_accum>][_<checkpoint>][_torchtitan]"
// + ".json".
std::string plan_file_name(const MeshCandidate& candidate);

}  // namespace dtplan::sweep
