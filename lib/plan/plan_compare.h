#pragma once
// Plans side by side (`dtplan compare`): the figures a person weighs two plans by, as data, one
// entry per plan in the order given, the first plan the reference of every ratio.
//   - the step: simulated step time, compute, communication and exposed communication, and
//     tokens/s per GPU and MFU where the plan has a model with token input (StepFigures, filled
//     by the caller from the step simulator: plan/ does not depend on sim/);
//   - memory per rank by part (the plan's MemorySummary) and the ratio of the peaks;
//   - collectives per training step, grouped by kind and by mesh dims (named, so that meshes of
//     different shapes line up), calls and bytes per rank summed from the plan's collectives;
//   - the parameter families (parameter_family.h) whose placements are not alike in every plan.
//
// Placements are alike when they shard the same tensor dims over the same mesh dim names:
// each plan's placements of a parameter become the set of (dim name, placement) pairs that are
// not Replicate, so `S(0)` on a mesh `dp_shard` and `S(0),R` on `dp_shard,tp` are alike (FSDP
// on dp_shard in both) while `S(0),S(1)` is not. A family is alike when every plan has the
// same distinct member placements in the same order. Plans of different models compare only
// the families every plan has (ModelMatch::kDiffer says so).
//
//   PlanComparison c = compare_plans(plans).value();
//   c.step_time_ratio[1]            // plan 1's step time / plan 0's
//   c.parameters.differing[0]       // {"layers.*.attention.wq.weight", {"S(0)", "S(0),S(0)"}}

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.h"
#include "core/result.h"
#include "plan/plan.h"

namespace dtplan::plan {

// The simulated step of one plan (sim/timeline.h, of its critical rank; sim/throughput.h).
struct StepFigures {
  double step_time_us = 0;
  double compute_us = 0;
  double communication_us = 0;
  double exposed_communication_us = 0;
  std::optional<double> tokens_per_s_per_gpu{};  // none: no token input, or no bf16 peak
  std::optional<double> mfu{};                   // a fraction, with tokens_per_s_per_gpu
  bool operator==(const StepFigures&) const = default;
};

struct ComparedPlan {
  std::string label;  // how the plan is named: its file name
  Plan plan;
  StepFigures step;
};

// Calls and bytes per rank of one row of collectives in one plan (zero where it has none).
struct CollectiveTotal {
  std::int64_t count = 0;
  std::int64_t bytes = 0;
  bool operator==(const CollectiveTotal&) const = default;
};

// One kind of collective, per plan.
struct CollectiveKindRow {
  collective::Collective kind = collective::Collective::kAllGather;
  std::vector<CollectiveTotal> plans;
  bool operator==(const CollectiveKindRow&) const = default;
};

// The collectives over one set of mesh dims (by name; a flattened mesh by the dims it joins),
// per plan.
struct CollectiveDimsRow {
  std::vector<std::string> mesh_dims;
  std::vector<CollectiveTotal> plans;
  bool operator==(const CollectiveDimsRow&) const = default;
};

// A parameter family whose placements are not alike in every plan.
struct ParameterDifference {
  std::string family;
  // Per plan: its members' placements in DTensor notation, the distinct ones in member order
  // joined by " | " (one text where alike layers agree).
  std::vector<std::string> placements;
  bool operator==(const ParameterDifference&) const = default;
};

// Whether every plan is of the first plan's model.
enum class ModelMatch : std::uint8_t { kSame, kDiffer };

// "same", "differ".
std::string_view model_match_name(ModelMatch match);

struct ParameterComparison {
  ModelMatch models = ModelMatch::kSame;
  std::int64_t compared = 0;                   // families every plan has
  std::int64_t unmatched = 0;                  // families some plan lacks (not compared)
  std::vector<ParameterDifference> differing;  // in the first plan's op order
  bool operator==(const ParameterComparison&) const = default;
};

struct PlanComparison {
  // Per plan, against the first: none where the first plan's figure is zero.
  std::vector<std::optional<double>> step_time_ratio;
  std::vector<std::optional<double>> peak_memory_ratio;
  std::vector<CollectiveKindRow> by_kind;       // kinds some plan has, in Collective order
  std::vector<CollectiveDimsRow> by_mesh_dims;  // dim-name lists some plan has, ascending
  ParameterComparison parameters;
  bool operator==(const PlanComparison&) const = default;
};

// @post error (kBadInput) for fewer than two plans; otherwise every per-plan vector has
//   plans.size() entries and step_time_ratio[0] == 1 where plan 0's step time is not zero.
core::Result<PlanComparison> compare_plans(std::span<const ComparedPlan> plans);

}  // namespace dtplan::plan
