#include "solve/problem_digest.h"

#include <bit>

namespace dtplan::solve::detail {
namespace {

class Digest {
 public:
  void add(std::uint64_t x) {
    h_ ^= x + 0x9e3779b97f4a7c15ULL + (h_ << 6) + (h_ >> 2);
    h_ *= 0xff51afd7ed558ccdULL;
  }
  void add(double x) { add(std::bit_cast<std::uint64_t>(x)); }
  void add(const std::vector<double>& xs) {
    add(static_cast<std::uint64_t>(xs.size()));
    for (double x : xs) add(x);
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

std::uint64_t problem_digest(const Problem& q, std::map<const double*, std::uint64_t>& matrices) {
  Digest d;
  for (const Node& n : q.nodes) d.add(n.cost_us);
  for (const Edge& e : q.edges) {
    d.add(static_cast<std::uint64_t>(e.from) << 32 | static_cast<std::uint32_t>(e.to));
    auto [it, added] = matrices.emplace(e.cost_us.data(), 0);
    if (added) {
      Digest m;
      m.add(e.cost_us.values());
      it->second = m.value();
    }
    d.add(it->second);
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
