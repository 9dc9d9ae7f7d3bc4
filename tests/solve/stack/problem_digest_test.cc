// The problem digest: names aside, equal problems digest alike, and a change to a unary cost, an
// edge's ends or matrix, or a memory row's bytes or bounds changes it; the running digest reads
// bits and order; shared matrices are read once per cache.

#include "solve/stack/problem_digest.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "support/solve_examples.h"

namespace dtplan::solve::detail {
namespace {

std::uint64_t digest_of(const Problem& p) {
  std::map<const double*, std::uint64_t> matrices;
  return problem_digest(p, matrices);
}

TEST_CASE("problem digest: alike problems digest alike, and any change shows") {
  const Problem p = testing::memory_chain(11);
  Problem renamed = p;
  renamed.nodes[0].name = "other";
  CHECK(digest_of(renamed) == digest_of(p));

  Problem unary = p;
  unary.nodes[1].cost_us[0] = 2.5;
  Problem ends = p;
  ends.edges[1].from = 0;
  Problem matrix = p;
  matrix.edges[0].cost_us = Matrix{0, 1, 2, 0};
  Problem bytes = p;
  bytes.memory[0].terms[1].bytes[0] = 9;
  Problem bound = p;
  bound.memory[0].high_bytes = 12;
  for (const Problem* changed : {&unary, &ends, &matrix, &bytes, &bound}) {
    CHECK(digest_of(*changed) != digest_of(p));
  }
}

TEST_CASE("problem digest: the running digest reads bits and order") {
  // -0.0 == 0.0 but their bits differ; a list's length counts (so [1], [] != [], [1]).
  Digest zero;
  zero.add(0.0);
  Digest negative;
  negative.add(-0.0);
  CHECK(zero.value() != negative.value());
  Digest ab;
  ab.add(std::vector<double>{1});
  ab.add(std::vector<double>{});
  Digest ba;
  ba.add(std::vector<double>{});
  ba.add(std::vector<double>{1});
  CHECK(ab.value() != ba.value());
}

TEST_CASE("problem digest: a shared matrix is digested once per cache") {
  // Both edges share one matrix: the cache holds one entry for it, and a second problem sharing
  // it reads the cached digest (the same result as a fresh cache).
  Problem p = testing::memory_chain(11);
  p.edges[1].cost_us = p.edges[0].cost_us;
  std::map<const double*, std::uint64_t> matrices;
  const std::uint64_t first = problem_digest(p, matrices);
  CHECK(matrices.size() == 1);
  CHECK(problem_digest(p, matrices) == first);
  CHECK(digest_of(p) == first);
}

}  // namespace
}  // namespace dtplan::solve::detail
