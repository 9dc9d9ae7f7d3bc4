#include "plan/plan_summary.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "plan/step_runs.h"

namespace dtplan::plan {

CostSummary cost_summary(const Plan& plan) {
  CostSummary c;
  const FusedIndex fused = index_fused(plan);
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    c.compute_us += static_cast<double>(op_runs(plan, i)) * fused.op_us[i];
  }
  for (std::size_t ri = 0; ri < plan.redistributions.size(); ++ri) {
    const PlanRedistribution& r = plan.redistributions[ri];
    const auto runs = static_cast<double>(redistribution_runs(plan, r));
    for (std::size_t si = 0; si < r.plan.steps.size(); ++si) {
      const redist::PlanStep& s = r.plan.steps[si];
      if (fused.absorbs(ri, si)) continue;
      if (redist::collective_of(s.transform.kind)) {
        c.communication_us += runs * s.cost_us;
      } else {
        c.redistribution_us += runs * s.cost_us;
      }
    }
  }
  c.total_us = c.compute_us + c.communication_us + c.redistribution_us;
  return c;
}

std::vector<CollectiveSummary> collective_summary(const Plan& plan) {
  using Key =
      std::tuple<collective::Collective, std::vector<std::int32_t>, std::string, std::int64_t>;
  std::map<Key, CollectiveSummary> rows;
  const FusedIndex fused = index_fused(plan);
  for (std::size_t ri = 0; ri < plan.redistributions.size(); ++ri) {
    const PlanRedistribution& r = plan.redistributions[ri];
    const std::int64_t runs = redistribution_runs(plan, r);
    for (std::size_t si = 0; si < r.plan.steps.size(); ++si) {
      const redist::PlanStep& s = r.plan.steps[si];
      const auto kind = redist::collective_of(s.transform.kind);
      if (!kind || s.group_size <= 1 || fused.absorbs(ri, si)) continue;
      Key key{*kind, s.transform.mesh_dims, s.transform.flattened_mesh, s.group_size};
      CollectiveSummary& row = rows[key];
      row.kind = *kind;
      row.mesh_dims = s.transform.mesh_dims;
      row.flattened = s.transform.flattened_mesh;
      row.group_size = s.group_size;
      row.count += runs;
      row.bytes += runs * s.bytes;
      row.time_us += static_cast<double>(runs) * s.cost_us;
    }
  }
  std::vector<CollectiveSummary> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

std::vector<redist::Warning> warning_summary(const Plan& plan,
                                             std::span<const redist::Warning> extra) {
  std::set<std::pair<std::vector<std::int32_t>, redist::WarningReason>> seen;
  std::vector<redist::Warning> out;
  auto add = [&](const redist::Warning& w) {
    if (seen.insert({w.mesh_dims, w.reason}).second) out.push_back(w);
  };
  for (const PlanRedistribution& r : plan.redistributions) {
    for (const redist::Warning& w : r.plan.warnings) add(w);
  }
  for (const redist::Warning& w : extra) add(w);
  return out;
}

void summarize(Plan& plan, std::span<const redist::Warning> extra) {
  plan.cost = cost_summary(plan);
  plan.collectives = collective_summary(plan);
  plan.warnings = warning_summary(plan, extra);
}

}  // namespace dtplan::plan
