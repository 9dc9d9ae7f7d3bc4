#include "solve/memory/infeasibility.h"

#include <cmath>
#include <memory>
#include <string>

#include "core/units.h"

namespace dtplan::solve::detail {

namespace {

// The fewest (sign +1) or most (sign -1) bytes memory row r can hold without a forbidden label or
// pair: the same factor graph with every cost replaced by 0 (+inf kept) and row r's bytes as unary
// costs.
double extreme_bytes(const EngineProblem& full, std::size_t r, double sign,
                     const EngineOptions& eo) {
  EngineProblem p;
  p.domains = full.domains;
  p.unary = full.unary;
  std::vector<char> is_unary(full.factors.size(), 0);
  for (std::int32_t id : full.unary) is_unary[id] = 1;
  const std::size_t rows = full.memory.rows();
  for (std::size_t id = 0; id < full.factors.size(); ++id) {
    const Table& in = *full.factors[id].table;
    auto t = std::make_shared<Table>();
    t->dims = in.dims;
    t->entries = in.entries;
    t->cost.resize(static_cast<std::size_t>(in.entries));
    for (std::int64_t e = 0; e < in.entries; ++e) {
      const bool allowed = in.min_cost(e) != kForbidden;
      double c = allowed ? 0.0 : kForbidden;
      if (allowed && is_unary[id] && in.frontier) {
        c = sign * static_cast<double>(in.point_mem[in.begin[e] * rows + r]);
      }
      t->cost[static_cast<std::size_t>(e)] = c;
    }
    p.factors.push_back({std::move(t), full.factors[id].scope});
  }
  const EngineSolution s = solve_engine(p, eo, nullptr);
  return s.found && s.complete ? sign * s.value_us : std::nan("");
}

}  // namespace

core::Error explain_infeasible(const EngineProblem& full, const std::vector<MemoryRow>& rows,
                               const EngineOptions& eo) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const MemoryRow& row = rows[r];
    const std::string where = " (memory row '" + row.name + "', bytes)";
    const double least = extreme_bytes(full, r, 1, eo);
    if (least > static_cast<double>(row.high_bytes)) {
      return core::Error::unsupported("infeasible: memory budget " +
                                      std::to_string(row.high_bytes) + " below minimum " +
                                      core::format_fixed(least, 0) + where);
    }
    const double most = extreme_bytes(full, r, -1, eo);
    if (most < static_cast<double>(row.low_bytes)) {
      return core::Error::unsupported("infeasible: memory floor " + std::to_string(row.low_bytes) +
                                      " above maximum " + core::format_fixed(most, 0) + where);
    }
  }
  if (!rows.empty()) {
    return core::Error::unsupported(
        "infeasible: the memory rows cannot all be met together with the forbidden labels and "
        "pairs");
  }
  return core::Error::unsupported("infeasible: every labelling uses a forbidden label or pair");
}

}  // namespace dtplan::solve::detail
