#pragma once
// The 64-bit hash mixing every module shares: splitmix64's finaliser, a seed-combining step built
// on it, and FNV-1a. Their values reach output (cache slots, the verification data a seed
// generates, replay checks that compare hashes across processes), so the arithmetic is fixed:
// changing a constant or an order changes output bytes.
//
//   splitmix64(0) == 0xe220a8397b1dcdaf  (the first value of splitmix64 seeded with 0)
//   fnv1a("a") == 0xaf63dc4c8601ec8c

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace dtplan::core {

// splitmix64's increment (2^64 / golden ratio, odd).
inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// splitmix64's finaliser: a bijective 64-bit mix for composing hashes of fixed-size keys.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One splitmix64 step of the counter `x`: mix64(x + kGoldenGamma).
constexpr std::uint64_t splitmix64(std::uint64_t x) { return mix64(x + kGoldenGamma); }

// Mixes `value` into `seed` (boost's hash_combine shape, finalised by mix64); the hashes of
// placements, specs and cache keys fold their fields through it in a fixed order.
constexpr std::size_t hash_combine(std::size_t seed, std::uint64_t value) {
  const auto s = static_cast<std::uint64_t>(seed);
  return static_cast<std::size_t>(mix64(s ^ (value + kGoldenGamma + (s << 6) + (s >> 2))));
}

// 64-bit FNV-1a's offset basis and prime.
inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;
inline constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

// FNV-1a of the bytes of `text`, continuing from `seed`: the stable hash of signatures.
constexpr std::uint64_t fnv1a(std::string_view text, std::uint64_t seed = kFnvOffset) {
  std::uint64_t h = seed;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * kFnvPrime;
  return h;
}

// FNV-1a of the `n` bytes at `data`, continuing from `seed`.
inline std::uint64_t fnv1a_bytes(const void* data, std::size_t n, std::uint64_t seed) {
  const auto* b = static_cast<const unsigned char*>(data);
  std::uint64_t h = seed;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * kFnvPrime;
  return h;
}

// FNV-1a of the 8 bytes of `value`, least significant first (so the same on every host),
// continuing from `seed`.
constexpr std::uint64_t fnv1a_u64(std::uint64_t value, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (int byte = 0; byte < 8; ++byte) {
    h = (h ^ (value & 0xffU)) * kFnvPrime;
    value >>= 8;
  }
  return h;
}

// A hash of a list of words for bucketing long keys that are then compared whole: four
// independent multiply lanes (so a long list hashes at about a word per cycle, where a chain of
// hash_combine waits on each step), folded with the length by hash_combine. Not for output.
inline std::uint64_t hash_words(std::span<const std::int64_t> words) {
  constexpr std::uint64_t kMul = 0x9fb21c651e98df25ULL;  // odd (a multiplier of Pelle Evensen's)
  std::uint64_t lane[4] = {kGoldenGamma, kGoldenGamma << 1, kGoldenGamma << 2, kGoldenGamma << 3};
  std::size_t i = 0;
  for (; i + 4 <= words.size(); i += 4) {
    for (std::size_t k = 0; k < 4; ++k) {
      lane[k] = (lane[k] ^ static_cast<std::uint64_t>(words[i + k])) * kMul;
      lane[k] ^= lane[k] >> 29;
    }
  }
  std::size_t h = hash_combine(0, words.size());
  for (; i < words.size(); ++i) h = hash_combine(h, static_cast<std::uint64_t>(words[i]));
  for (std::uint64_t l : lane) h = hash_combine(h, l);
  return h;
}

}  // namespace dtplan::core
