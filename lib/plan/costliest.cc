#include "plan/costliest.h"

#include <algorithm>

#include "plan/step_runs.h"

namespace dtplan::plan {

std::vector<RankedRedistribution> costliest_redistributions(const Plan& plan, std::size_t n) {
  std::vector<RankedRedistribution> all;
  for (std::size_t i = 0; i < plan.redistributions.size(); ++i) {
    const PlanRedistribution& r = plan.redistributions[i];
    const std::int64_t runs = redistribution_runs(plan, r);
    const double step_us = r.plan.total_cost_us * static_cast<double>(runs);
    if (step_us > 0) all.push_back({i, runs, step_us});
  }
  auto consumer = [&](const RankedRedistribution& e) -> const PlanRedistribution& {
    return plan.redistributions[e.index];
  };
  std::sort(all.begin(), all.end(),
            [&](const RankedRedistribution& a, const RankedRedistribution& b) {
              if (a.step_us != b.step_us) return a.step_us > b.step_us;
              const std::string& an = plan.ops[static_cast<std::size_t>(consumer(a).consumer)].name;
              const std::string& bn = plan.ops[static_cast<std::size_t>(consumer(b).consumer)].name;
              if (an != bn) return an < bn;
              return consumer(a).slot < consumer(b).slot;
            });
  if (all.size() > n) all.resize(n);
  return all;
}

}  // namespace dtplan::plan
