#include "core/hash.h"

#include <doctest/doctest.h>

#include <array>
#include <set>
#include <vector>

namespace dtplan::core {
namespace {

TEST_CASE("hash: splitmix64 is the reference stream seeded with 0") {
  // The reference generator's state advances by kGoldenGamma and outputs mix64(state).
  CHECK(splitmix64(0) == 0xe220a8397b1dcdafULL);
  CHECK(splitmix64(kGoldenGamma) == 0x6e789e6aa1b965f4ULL);
  CHECK(splitmix64(2 * kGoldenGamma) == 0x06c45d188009454fULL);
  CHECK(mix64(0) == 0);
  CHECK(mix64(1) == 0x5692161d100b05e5ULL);
}

TEST_CASE("hash: mix64 is a bijection on a sample (distinct inputs, distinct outputs)") {
  std::set<std::uint64_t> seen;
  for (std::uint64_t x = 0; x < 4096; ++x) seen.insert(mix64(x));
  CHECK(seen.size() == 4096);
}

TEST_CASE("hash: hash_combine pinned values and order sensitivity") {
  CHECK(hash_combine(0, 0) == 0xe220a8397b1dcdafULL);
  CHECK(hash_combine(0, 1) == 0x910a2dec89025cc1ULL);
  CHECK(hash_combine(hash_combine(0, 1), 2) == 0x35eaeb1c84d55087ULL);
  CHECK(hash_combine(hash_combine(0, 1), 2) != hash_combine(hash_combine(0, 2), 1));
}

TEST_CASE("hash: FNV-1a test vectors") {
  CHECK(fnv1a("") == kFnvOffset);
  CHECK(fnv1a("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a("foobar") == 0x85944171f73967e8ULL);
  CHECK(fnv1a("bar", fnv1a("foo")) == fnv1a("foobar"));  // continues from a seed
  const std::array<unsigned char, 6> bytes{'f', 'o', 'o', 'b', 'a', 'r'};
  CHECK(fnv1a_bytes(bytes.data(), bytes.size(), kFnvOffset) == fnv1a("foobar"));
  // Least significant byte first, whatever the host's byte order.
  CHECK(fnv1a_u64(0x0102030405060708ULL, kFnvOffset) == 0x0c6d4496e17859d5ULL);
  const std::array<unsigned char, 8> le{8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(fnv1a_u64(0x0102030405060708ULL, kFnvOffset) ==
        fnv1a_bytes(le.data(), le.size(), kFnvOffset));
}

TEST_CASE("hash: hash_words depends on every word, its place and the length") {
  const std::vector<std::int64_t> base{1, 2, 3, 4, 5, 6, 7, 8, 9};  // two lanes' rounds and a tail
  const std::uint64_t h = hash_words(base);
  CHECK(hash_words(std::vector<std::int64_t>(base)) == h);  // a function of the words only
  std::set<std::uint64_t> seen{h};
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::vector<std::int64_t> changed = base;
    changed[i] += 1;
    seen.insert(hash_words(changed));
  }
  std::vector<std::int64_t> swapped = base;
  std::swap(swapped[0], swapped[1]);  // the same words in another order
  seen.insert(hash_words(swapped));
  std::vector<std::int64_t> longer = base;
  longer.push_back(0);
  seen.insert(hash_words(longer));
  CHECK(seen.size() == base.size() + 3);
  CHECK(hash_words({}) != hash_words(std::vector<std::int64_t>{0}));
}

}  // namespace
}  // namespace dtplan::core
