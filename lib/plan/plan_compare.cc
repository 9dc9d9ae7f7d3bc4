#include "plan/plan_compare.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "placement/placement_text.h"
#include "plan/parameter_family.h"

namespace dtplan::plan {

namespace {

// A parameter's placements by mesh dim name, Replicate left out (the rule in the header).
using Signature = std::vector<std::pair<std::string, std::string>>;

std::string dim_name(const redist::MeshDescription& mesh, std::int32_t dim) {
  const auto d = static_cast<std::size_t>(dim);
  return d < mesh.names.size() ? mesh.names[d] : std::to_string(dim);
}

Signature signature(const redist::MeshDescription& mesh, const PlanOp& op) {
  Signature out;
  for (std::size_t d = 0; d < op.placements.size(); ++d) {
    if (op.placements[d].is_replicate()) continue;
    out.emplace_back(dim_name(mesh, static_cast<std::int32_t>(d)),
                     placement::to_string(op.placements[d]));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One family in one plan: its members' distinct signatures and placement texts, in member order.
struct FamilyPlacements {
  std::vector<Signature> signatures;
  std::vector<std::string> texts;
};

// Every parameter family of `plan`, and the families in op order.
struct Families {
  std::map<std::string, FamilyPlacements> by_name;
  std::vector<std::string> order;
};

Families families(const Plan& plan) {
  Families out;
  for (const PlanOp& op : plan.ops) {
    if (op.role != core::OpRole::kParam) continue;
    const std::string family = parameter_family(op.name);
    auto [it, added] = out.by_name.try_emplace(family);
    if (added) out.order.push_back(family);
    FamilyPlacements& f = it->second;
    Signature s = signature(plan.mesh, op);
    if (std::find(f.signatures.begin(), f.signatures.end(), s) == f.signatures.end()) {
      f.signatures.push_back(std::move(s));
    }
    std::string text = placement::format_placements(op.placements);
    if (std::find(f.texts.begin(), f.texts.end(), text) == f.texts.end()) {
      f.texts.push_back(std::move(text));
    }
  }
  return out;
}

ParameterComparison compare_parameters(std::span<const ComparedPlan> plans) {
  ParameterComparison out;
  std::vector<Families> all;
  std::set<std::string> names;
  for (const ComparedPlan& p : plans) {
    all.push_back(families(p.plan));
    for (const std::string& n : all.back().order) names.insert(n);
    if (p.plan.model != plans[0].plan.model) out.models = ModelMatch::kDiffer;
  }
  for (const std::string& name : names) {
    const bool everywhere = std::all_of(
        all.begin(), all.end(), [&](const Families& f) { return f.by_name.contains(name); });
    ++(everywhere ? out.compared : out.unmatched);
  }
  for (const std::string& name : all[0].order) {
    bool alike = true;
    ParameterDifference diff{.family = name, .placements = {}};
    for (const Families& f : all) {
      auto it = f.by_name.find(name);
      if (it == f.by_name.end()) break;
      alike = alike && it->second.signatures == all[0].by_name.at(name).signatures;
      std::string text;
      for (const std::string& t : it->second.texts) text += (text.empty() ? "" : " | ") + t;
      diff.placements.push_back(std::move(text));
    }
    if (diff.placements.size() == plans.size() && !alike) out.differing.push_back(std::move(diff));
  }
  return out;
}

std::vector<std::string> dim_names(const redist::MeshDescription& mesh,
                                   const std::vector<std::int32_t>& dims) {
  std::vector<std::string> out;
  for (std::int32_t d : dims) out.push_back(dim_name(mesh, d));
  return out;
}

// Adds every plan's collectives to the rows by kind and by mesh dims.
void collect(std::span<const ComparedPlan> plans, PlanComparison& out) {
  std::map<collective::Collective, std::vector<CollectiveTotal>> by_kind;
  std::map<std::vector<std::string>, std::vector<CollectiveTotal>> by_dims;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    for (const CollectiveSummary& c : plans[i].plan.collectives) {
      for (std::vector<CollectiveTotal>* row :
           {&by_kind[c.kind], &by_dims[dim_names(plans[i].plan.mesh, c.mesh_dims)]}) {
        row->resize(plans.size());
        (*row)[i].count += c.count;
        (*row)[i].bytes += c.bytes;
      }
    }
  }
  for (auto& [kind, totals] : by_kind) out.by_kind.push_back({kind, std::move(totals)});
  for (auto& [dims, totals] : by_dims) out.by_mesh_dims.push_back({dims, std::move(totals)});
}

std::optional<double> ratio(double value, double first) {
  if (first == 0) return std::nullopt;
  return value / first;
}

}  // namespace

std::string_view model_match_name(ModelMatch match) {
  return match == ModelMatch::kSame ? "same" : "differ";
}

core::Result<PlanComparison> compare_plans(std::span<const ComparedPlan> plans) {
  if (plans.size() < 2) {
    return core::Error::bad_input("compare: " + std::to_string(plans.size()) +
                                  " plan(s) given; two or more are needed");
  }
  PlanComparison out;
  const ComparedPlan& first = plans[0];
  for (const ComparedPlan& p : plans) {
    out.step_time_ratio.push_back(ratio(p.step.step_time_us, first.step.step_time_us));
    out.peak_memory_ratio.push_back(
        ratio(static_cast<double>(p.plan.memory.peak_bytes_per_rank),
              static_cast<double>(first.plan.memory.peak_bytes_per_rank)));
  }
  collect(plans, out);
  out.parameters = compare_parameters(plans);
  return out;
}

}  // namespace dtplan::plan
