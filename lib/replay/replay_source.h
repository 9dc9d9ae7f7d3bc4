#pragma once
// ReplaySource: what `dtplan replay` runs, read from a plan file: the mesh the plan was made for
// and every redistribution it holds, each with its planned steps. A redistribute plan (`dtplan
// redistribute --json`) is one redistribution; a whole-model plan (`dtplan plan --out`) has one
// per edge that needs it, and its ops (their compute times, for --compute).
//
//   ReplaySource s = from_redist_plan(plan);        // kind kRedistribute, 1 redistribution
//   s.redistributions[0].label == "redistribute S(0),R -> R,R"
//   ReplaySource m = from_model_plan(model_plan);   // labels "op 12 'layers.0.wq' input 1"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "plan/plan.h"
#include "redist/redist_plan.h"

namespace dtplan::replay {

enum class PlanKind : std::uint8_t { kRedistribute, kModel };

// "redistribute", "model".
std::string_view plan_kind_name(PlanKind kind);

struct ReplayRedistribution {
  std::string label;  // where it is in the plan, for reports and errors
  redist::RedistPlan plan;
  bool operator==(const ReplayRedistribution&) const = default;
};

struct ReplaySource {
  PlanKind kind = PlanKind::kRedistribute;
  std::string model;  // the model's name (model plans), else ""
  redist::MeshDescription mesh;
  std::vector<ReplayRedistribution> redistributions;  // in plan order
  std::vector<plan::PlanOp> ops;                      // model plans only
  // The steps' costs were re-priced from the hardware profile the plan names (replay_source_io.h);
  // false where that profile was not at hand and the costs were checked for range only.
  bool repriced = false;
  bool operator==(const ReplaySource&) const = default;
};

// A redistribute plan as a source. @pre redist::check_plan(plan) passed (the readers check it).
ReplaySource from_redist_plan(redist::RedistPlan plan);

// A whole-model plan as a source. @pre plan::check_plan(plan) passed.
ReplaySource from_model_plan(const plan::Plan& plan);

// The number of ranks the plan's mesh spans: one more than its largest rank. A backend's world
// must have exactly this many ranks. Error (kBadInput) for an empty or negative rank map.
core::Result<std::int64_t> mesh_world_size(const redist::MeshDescription& mesh);

}  // namespace dtplan::replay
