#pragma once
// The random redistribution requests of the soak (soak_main.cc). Case i of seed s depends on
// (s, i) alone, through a splitmix64 stream and plain modular arithmetic (no std distribution,
// whose results differ between standard libraries), so a case reproduces on any machine and
// with any number of workers.
//
// What a case draws:
//   mesh       1-4 dims of sizes 1..8 (size-1 and odd dims included), at most 64 ranks; dim
//              names A,B,C,D (or none), 0-2 flattened dim sets, GPUs per node 1..8 or the
//              profile's 8 (uneven node structures)
//   tensor     1-3 dims of sizes 0..12 (uneven and empty), dtype f32, bf16, f16, f64, i32 or i64
//              (rarely i8, which --verify refuses: exit 3), --values float or int
//   placements R, P(op) over one op set ({sum}, {avg}, {sum,avg}, {max}, {min}), S(d) and
//              _S(d,sf), with [k] shard-order suffixes on tensor dims split several times; dst
//              pairs that DTensor does not support (shard -> P, P(x) -> P(y)) mostly replaced
//              by R, and rarely a tensor dim out of range (exit 2)

#include <cstdint>
#include <string>
#include <vector>

namespace dtplan::soak {

// splitmix64: a deterministic stream of 64-bit values.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform enough in [0, n) for n >= 1 (n is tiny next to 2^64).
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % n); }
  bool percent(int p) { return below(100) < p; }

 private:
  std::uint64_t state_;
};

struct Case {
  // `redistribute ... --verify --values V --seed N --json`, without --planner and --no-merge.
  std::vector<std::string> args;
};

Case make_case(std::uint64_t seed, std::int64_t index);

}  // namespace dtplan::soak
