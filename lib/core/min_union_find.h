#pragma once
// Disjoint sets of 0..n-1 whose root is always the smallest member, so a class is named by its
// lowest element whatever order the unions came in.
//
//   MinUnionFind uf(4);
//   uf.unite(3, 1);
//   uf.find(3);  // 1

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace dtplan::core {

class MinUnionFind {
 public:
  explicit MinUnionFind(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), std::int32_t{0});
  }

  // The smallest element of x's class (path halving).
  std::int32_t find(std::int32_t x) {
    while (parent_[static_cast<std::size_t>(x)] != x) {
      auto& p = parent_[static_cast<std::size_t>(x)];
      p = parent_[static_cast<std::size_t>(p)];
      x = p;
    }
    return x;
  }

  // Merges the classes of a and b; true iff they were apart.
  bool unite(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    return true;
  }

 private:
  std::vector<std::int32_t> parent_;
};

}  // namespace dtplan::core
