#include "solve/memory/window.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dtplan::solve::detail {

std::optional<OutsideSet> outside_set(const EngineProblem& scalar,
                                      const std::vector<GroupShape>& shapes,
                                      const EngineOptions& options) {
  const Decomposition d = decompose(shapes, scalar, options, nullptr, Retain::kMessages);
  if (!d.complete) return std::nullopt;
  const OrderPlan plan =
      leaf_plan(d.global, std::numeric_limits<double>::infinity(), options.limits.deadline);
  if (std::isinf(plan.total_work) ||
      plan.max_message_entries > static_cast<double>(options.max_table_entries))
    return std::nullopt;
  const Elimination e = Elimination::run(d.global.domains, d.global.factors, plan.order,
                                         d.global.memory, options.limits);
  if (e.status() != RunStatus::kComplete) return std::nullopt;
  // The remaining factors are constants; the outside of each is the sum of the others.
  const std::vector<std::int32_t>& constants = e.remaining();
  Outside init(e.factors().size());
  OutsideSet set;
  for (std::size_t i = 0; i < constants.size(); ++i) {
    double others = 0;
    for (std::size_t j = 0; j < constants.size(); ++j) {
      if (j != i) others += e.factors()[constants[j]].table->cost[0];
    }
    init[constants[i]] = {others};
    set.lagrangian_min_us += e.factors()[constants[i]].table->cost[0];
  }
  std::optional<Outside> tables = e.outside_tables(std::move(init), options.limits.deadline);
  if (!tables) return std::nullopt;
  auto global = std::make_shared<const Outside>(std::move(*tables));
  for (const GroupPlan& plan_g : d.groups) {
    Outside sub_init(plan_g.sub.factors().size());
    for (std::size_t k = 0; k < plan_g.residual.size(); ++k) {
      std::vector<double> least = (*global)[plan_g.copies[0][k]];
      for (std::size_t b = 1; b < plan_g.copies.size(); ++b) {
        const std::vector<double>& other = (*global)[plan_g.copies[b][k]];
        for (std::size_t i = 0; i < least.size(); ++i) least[i] = std::min(least[i], other[i]);
      }
      sub_init[plan_g.residual[k]] = std::move(least);
    }
    std::optional<Outside> sub =
        plan_g.sub.outside_tables(std::move(sub_init), options.limits.deadline);
    if (!sub) return std::nullopt;
    set.groups.push_back(std::make_shared<const Outside>(std::move(*sub)));
  }
  set.global = std::move(global);
  return set;
}

}  // namespace dtplan::solve::detail
