#include "solve/engine/table.h"

#include <algorithm>
#include <cassert>

namespace dtplan::solve::detail {

std::vector<std::int64_t> table_strides(const std::vector<std::int32_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

double table_min_cost(const Table& table) {
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t e = 0; e < table.entries; ++e) best = std::min(best, table.min_cost(e));
  return best;
}

std::shared_ptr<const Table> scalar_projection(const std::shared_ptr<const Table>& table) {
  if (!table->frontier) return table;
  auto out = std::make_shared<Table>();
  out->dims = table->dims;
  out->entries = table->entries;
  out->cost.resize(static_cast<std::size_t>(table->entries));
  for (std::int64_t e = 0; e < table->entries; ++e) out->cost[e] = table->min_cost(e);
  return out;
}

Factor condition_factor(const Factor& factor, std::int32_t var, std::int32_t label) {
  const Table& in = *factor.table;
  const auto pos = static_cast<std::size_t>(
      std::find(factor.scope.begin(), factor.scope.end(), var) - factor.scope.begin());
  assert(pos < factor.scope.size());
  const std::vector<std::int64_t> strides = table_strides(in.dims);
  auto out = std::make_shared<Table>();
  Factor result;
  for (std::size_t i = 0; i < factor.scope.size(); ++i) {
    if (i == pos) continue;
    result.scope.push_back(factor.scope[i]);
    out->dims.push_back(in.dims[i]);
  }
  out->entries = in.entries / in.dims[pos];
  out->frontier = in.frontier;
  out->absorbed_min = in.absorbed_min;
  out->absorbed_max = in.absorbed_max;
  const std::size_t rows = in.absorbed_min.size();
  // Entry e of the output = entry (outer, label, inner) of the input.
  const std::int64_t inner = strides[pos];
  if (!in.frontier) out->cost.resize(static_cast<std::size_t>(out->entries));
  if (in.frontier) out->begin.push_back(0);
  for (std::int64_t e = 0; e < out->entries; ++e) {
    const std::int64_t src = (e / inner) * inner * in.dims[pos] + label * inner + e % inner;
    if (!in.frontier) {
      out->cost[e] = in.cost[src];
      continue;
    }
    for (std::uint32_t p = in.begin[src]; p < in.begin[src + 1]; ++p) {
      out->point_cost.push_back(in.point_cost[p]);
      for (std::size_t r = 0; r < rows; ++r) out->point_mem.push_back(in.point_mem[p * rows + r]);
    }
    out->begin.push_back(static_cast<std::uint32_t>(out->point_cost.size()));
  }
  result.table = std::move(out);
  return result;
}

}  // namespace dtplan::solve::detail
