#include "solve/stack/problem_digest.h"

namespace dtplan::solve::detail {
std::uint64_t matrix_digest(const Matrix& m, std::map<const double*, std::uint64_t>& matrices) {
  auto [it, added] = matrices.emplace(m.data(), 0);
  if (added) {
    Digest d;
    d.add(m.values());
    it->second = d.value();
  }
  return it->second;
}

std::uint64_t problem_digest(const Problem& q, std::map<const double*, std::uint64_t>& matrices) {
  Digest d;
  for (const Node& n : q.nodes) d.add(n.cost_us);
  for (const Edge& e : q.edges) {
    d.add(static_cast<std::uint64_t>(e.from) << 32 | static_cast<std::uint32_t>(e.to));
    d.add(matrix_digest(e.cost_us, matrices));
  }
  for (const MemoryRow& row : q.memory) {
    d.add(static_cast<std::uint64_t>(row.low_bytes));
    d.add(static_cast<std::uint64_t>(row.high_bytes));
    for (const MemoryTerm& t : row.terms) {
      d.add(static_cast<std::uint64_t>(t.node));
      for (std::int64_t b : t.bytes) d.add(static_cast<std::uint64_t>(b));
    }
  }
  return d.value();
}

}  // namespace dtplan::solve::detail
