// chain_stats against a brute force over every coordinate, and the reference's worked lengths.

#include "redist/split_chain.h"

#include <doctest/doctest.h>

#include <numeric>
#include <random>

#include "placement/chunk.h"
#include "support/placement_specs.h"

namespace dtplan::redist {
namespace {

using placement::Placement;

ChainStats brute(std::int64_t length, const std::vector<Split>& chain, std::size_t level = 0) {
  if (level == chain.size()) return {length, length};
  ChainStats out;
  for (std::int64_t r = 0; r < chain[level].n; ++r) {
    const std::int64_t l = placement::split_length(chain[level].how, length, chain[level].n, r);
    const ChainStats sub = brute(l, chain, level + 1);
    out.max_length = std::max(out.max_length, sub.max_length);
    out.gcd = std::gcd(out.gcd, sub.gcd);
  }
  return out;
}

TEST_CASE("chain stats: worked examples") {
  const Placement s = Placement::shard(0);
  CHECK(chain_stats(9, std::vector<Split>{{2, s}, {2, s}}) == ChainStats{3, 1});
  CHECK(chain_stats(8, std::vector<Split>{{2, s}, {2, s}}) == ChainStats{2, 2});
  CHECK(chain_stats(6, std::vector<Split>{{4, s}}) == ChainStats{2, 2});
  CHECK(chain_stats(7, {}) == ChainStats{7, 7});
  CHECK(chain_stats(0, std::vector<Split>{{3, s}}) == ChainStats{0, 0});
  // 9 elements, _S(0, sf=2) over 4: ranks hold 3, 3, 2, 1 (docs/reference/placements.md §1.4).
  CHECK(chain_stats(9, std::vector<Split>{{4, Placement::strided_shard(0, 2)}}) ==
        ChainStats{3, 1});
  CHECK(divides_all(ChainStats{2, 2}, 2));
  CHECK_FALSE(divides_all(ChainStats{3, 1}, 2));
  CHECK(divides_all(ChainStats{0, 0}, 5));
}

TEST_CASE("chain stats equal the brute force over every coordinate") {
  std::mt19937_64 rng(20240611);
  for (int i = 0; i < 3000; ++i) {
    std::vector<Split> chain;
    const auto levels = testing::uniform(rng, 0, 4);
    for (std::int64_t k = 0; k < levels; ++k) {
      const std::int64_t n = testing::uniform(rng, 1, 5);
      const std::int64_t sf = testing::uniform(rng, 1, 4);
      chain.push_back({n, Placement::strided_shard(0, sf)});
    }
    const std::int64_t length = testing::uniform(rng, 0, 60);
    INFO("length " << length << " levels " << levels);
    CHECK(chain_stats(length, chain) == brute(length, chain));
  }
}

TEST_CASE("chain max length: chain_stats' max, plain chunks in closed form") {
  const Placement s = Placement::shard(0);
  CHECK(chain_max_length(9, std::vector<Split>{{2, s}, {2, s}}) == 3);
  CHECK(chain_max_length(7, {}) == 7);
  CHECK(chain_max_length(0, std::vector<Split>{{3, s}}) == 0);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::vector<Split> chain;
    const auto levels = testing::uniform(rng, 0, 4);
    const bool plain = i % 2 == 0;  // half the chains Shard only, half with StridedShard
    for (std::int64_t k = 0; k < levels; ++k) {
      const std::int64_t n = testing::uniform(rng, 1, 9);
      const std::int64_t sf = plain ? 1 : testing::uniform(rng, 1, 4);
      chain.push_back({n, sf == 1 ? s : Placement::strided_shard(0, sf)});
    }
    const std::int64_t length = testing::uniform(rng, 0, 200);
    INFO("length " << length << " levels " << levels);
    CHECK(chain_max_length(length, chain) == chain_stats(length, chain).max_length);
  }
}

}  // namespace
}  // namespace dtplan::redist
