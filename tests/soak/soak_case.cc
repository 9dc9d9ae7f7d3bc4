#include "soak/soak_case.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace dtplan::soak {

namespace {

constexpr int kMaxRanks = 64;

std::string join_ints(const std::vector<std::int64_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  return out;
}

// One mesh dim's placement before its shard-order suffix.
struct Slot {
  enum Kind { kR, kP, kS, kSS } kind = kR;
  std::string op;  // kP
  int dim = 0;     // kS, kSS
  int factor = 2;  // kSS
};

std::string slot_text(const Slot& s) {
  switch (s.kind) {
    case Slot::kR:
      return "R";
    case Slot::kP:
      return "P(" + s.op + ")";
    case Slot::kS:
      return "S(" + std::to_string(s.dim) + ")";
    case Slot::kSS:
      return "_S(" + std::to_string(s.dim) + "," + std::to_string(s.factor) + ")";
  }
  return "R";
}

std::vector<Slot> random_slots(Rng& rng, std::size_t mesh_dims, int rank,
                               const std::vector<std::string>& ops) {
  std::vector<Slot> out(mesh_dims);
  for (Slot& s : out) {
    const std::int64_t k = rng.below(100);
    if (k < 30) {
      s.kind = Slot::kR;
    } else if (k < 55) {
      s.kind = Slot::kP;
      s.op = ops[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(ops.size())))];
    } else if (k < 90) {
      s.kind = Slot::kS;
      s.dim = static_cast<int>(rng.below(rank));
    } else {
      s.kind = Slot::kSS;
      s.dim = static_cast<int>(rng.below(rank));
      s.factor = 2 + static_cast<int>(rng.below(3));
    }
  }
  return out;
}

// The list text; tensor dims split by two or more mesh dims get [k] suffixes in a random order
// (the default order, ascending mesh dims, when not drawn).
std::string list_text(Rng& rng, const std::vector<Slot>& slots, int rank) {
  std::vector<std::string> items;
  for (const Slot& s : slots) items.push_back(slot_text(s));
  for (int t = 0; t < rank; ++t) {
    std::vector<std::size_t> splits;
    for (std::size_t m = 0; m < slots.size(); ++m) {
      if ((slots[m].kind == Slot::kS || slots[m].kind == Slot::kSS) && slots[m].dim == t) {
        splits.push_back(m);
      }
    }
    if (splits.size() < 2 || !rng.percent(40)) continue;
    std::vector<int> position(splits.size());
    std::iota(position.begin(), position.end(), 0);
    for (std::size_t i = position.size(); i > 1; --i) {
      std::swap(position[i - 1],
                position[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(i)))]);
    }
    for (std::size_t i = 0; i < splits.size(); ++i) {
      items[splits[i]].append(1, '[').append(std::to_string(position[i])).append(1, ']');
    }
  }
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? "," : "") + items[i];
  return out;
}

std::vector<std::int64_t> random_mesh(Rng& rng) {
  static constexpr std::array<std::int64_t, 10> kSizes = {1, 2, 2, 3, 4, 5, 6, 7, 8, 1};
  const std::size_t ndim = 1 + static_cast<std::size_t>(rng.below(4));
  std::vector<std::int64_t> mesh(ndim);
  for (;;) {
    std::int64_t ranks = 1;
    for (std::int64_t& s : mesh) {
      s = kSizes[static_cast<std::size_t>(rng.below(kSizes.size()))];
      ranks *= s;
    }
    if (ranks <= kMaxRanks) return mesh;
  }
}

}  // namespace

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Case make_case(std::uint64_t seed, std::int64_t index) {
  Rng rng(Rng(seed ^ 0x5eed5eed5eed5eedULL).next() + static_cast<std::uint64_t>(index));
  Case c;
  std::vector<std::string>& a = c.args;
  a = {"redistribute"};
  const std::vector<std::int64_t> mesh = random_mesh(rng);
  a.insert(a.end(), {"--mesh", join_ints(mesh)});
  static constexpr std::array<const char*, 4> kNames = {"A", "B", "C", "D"};
  const bool named = rng.percent(85);
  if (named) {
    std::string names;
    for (std::size_t m = 0; m < mesh.size(); ++m) {
      if (m > 0) names += ',';
      names += kNames[m];
    }
    a.insert(a.end(), {"--names", names});
    std::vector<std::uint32_t> flattened;
    const std::int64_t count = mesh.size() >= 2 ? rng.below(3) : 0;
    for (std::int64_t k = 0; k < count; ++k) {
      const auto mask = static_cast<std::uint32_t>(rng.below(std::int64_t{1} << mesh.size()));
      if (__builtin_popcount(mask) < 2 ||
          std::find(flattened.begin(), flattened.end(), mask) != flattened.end()) {
        continue;
      }
      flattened.push_back(mask);
      std::string dims;
      for (std::size_t m = 0; m < mesh.size(); ++m) {
        if (((mask >> m) & 1U) == 0) continue;
        if (!dims.empty()) dims += ',';
        dims += kNames[m];
      }
      a.insert(a.end(), {"--flatten", dims});
    }
  }
  if (rng.percent(50)) a.insert(a.end(), {"--gpus-per-node", std::to_string(1 + rng.below(8))});
  const int rank = 1 + static_cast<int>(rng.below(3));
  std::vector<std::int64_t> shape(static_cast<std::size_t>(rank));
  for (std::int64_t& s : shape) s = rng.percent(7) ? 0 : 1 + rng.below(12);
  a.insert(a.end(), {"--shape", join_ints(shape)});
  static constexpr std::array<const char*, 6> kDtypes = {"f32", "bf16", "f16", "f64", "i32", "i64"};
  const std::string dtype =
      rng.percent(3) ? "i8" : kDtypes[static_cast<std::size_t>(rng.below(kDtypes.size()))];
  a.insert(a.end(), {"--dtype", dtype});
  static const std::vector<std::vector<std::string>> kOpSets = {{"sum"},        {"sum"}, {"avg"},
                                                                {"sum", "avg"}, {"max"}, {"min"}};
  const std::vector<std::string>& ops =
      kOpSets[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(kOpSets.size())))];
  const std::vector<Slot> src = random_slots(rng, mesh.size(), rank, ops);
  std::vector<Slot> dst = random_slots(rng, mesh.size(), rank, ops);
  if (rng.percent(90)) {
    // DTensor refuses shard -> P and P(x) -> P(y): Replicate instead.
    for (std::size_t m = 0; m < mesh.size(); ++m) {
      const bool same = src[m].kind == dst[m].kind && src[m].op == dst[m].op;
      if (dst[m].kind == Slot::kP && src[m].kind != Slot::kR && !same) dst[m].kind = Slot::kR;
    }
  }
  if (rng.percent(2))
    dst[static_cast<std::size_t>(rng.below(mesh.size()))] = {Slot::kS, "", rank, 2};
  a.insert(a.end(), {"--from", list_text(rng, src, rank), "--to", list_text(rng, dst, rank)});
  a.insert(a.end(), {"--verify", "--values", rng.percent(50) ? "float" : "int", "--seed",
                     std::to_string(1 + rng.below(1000)), "--json"});
  return c;
}

}  // namespace dtplan::soak
