#pragma once
// Internal to lib/solve: a 64-bit digest of a problem (node names aside), to find sub-problems
// (repeated blocks) equal to one solved before. Users must stay correct on a collision (it may
// only cost them a missed improvement or a weaker bound, never a wrong answer).

#include <bit>
#include <cstdint>
#include <map>
#include <vector>

#include "solve/problem.h"

namespace dtplan::solve::detail {

// A running 64-bit digest of integers and doubles (bitwise: -0.0 and 0.0 differ).
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

// The digest of a matrix's values, cached by their address (`matrices`): matrices shared between
// blocks (matrix.h) are read once per cache, which must not outlive them.
std::uint64_t matrix_digest(const Matrix& m, std::map<const double*, std::uint64_t>& matrices);

// The digest of q's unary costs, edges (ends and matrices) and memory rows; repeats and pins are
// not read. `matrices` caches each matrix's digest by the address of its values, so that matrices
// shared between blocks (matrix.h) are read once per caller.
std::uint64_t problem_digest(const Problem& q, std::map<const double*, std::uint64_t>& matrices);

}  // namespace dtplan::solve::detail
