// Properties of DeviceMesh over random meshes of 1 to 4 dims (fixed seeds): groups partition the
// rank map and agree with coordinates and mesh tensors; flattened groups are the product groups;
// unflatten then flatten is the identity; slicing then concatenating gives back the mesh.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>

#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"
#include "support/mesh_gen.h"

namespace dtplan::mesh {
namespace {

using testing::Ints;
using testing::Names;
using testing::ok;
using testing::RankMap;

// Row-major index of `coord` within `shape`.
std::int64_t linear(const Ints& coord, const Ints& shape) {
  std::int64_t out = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) out = out * shape[i] + coord[i];
  return out;
}

// Every rank of the rank map is in exactly one group per dim; its coordinate locates it in the
// mesh tensor it sees; the group of dim d holding it is that tensor's line along d through it.
void check_invariants(const DeviceMesh& m) {
  Ints all(m.rank_map().begin(), m.rank_map().end());
  std::sort(all.begin(), all.end());
  Ints shape = m.shape();
  std::vector<std::map<std::int64_t, Ints>> group_of(static_cast<std::size_t>(m.ndim()));
  for (int d = 0; d < m.ndim(); ++d) {
    layout::IntTensor g = m.groups(mesh_dim(d));
    REQUIRE(g.shape == Ints{static_cast<std::int64_t>(all.size()) / shape[d], shape[d]});
    Ints members = g.values;
    std::sort(members.begin(), members.end());
    CHECK(members == all);
    for (std::int64_t r = 0; r < layout::rows(g); ++r) {
      auto row = layout::row(g, r);
      for (std::int64_t rank : row) group_of[d][rank] = Ints(row.begin(), row.end());
    }
  }
  for (std::int64_t rank : all) {
    auto coord = m.coordinate(rank);
    REQUIRE(coord.has_value());
    layout::IntTensor t = ok(m.mesh_tensor(rank));
    CHECK(t.values[static_cast<std::size_t>(linear(*coord, shape))] == rank);
    for (int d = 0; d < m.ndim(); ++d) {
      Ints line;
      Ints c = *coord;
      for (c[d] = 0; c[d] < shape[d]; ++c[d]) {
        line.push_back(t.values[static_cast<std::size_t>(linear(c, shape))]);
      }
      CHECK(group_of[d][rank] == line);
      CHECK(ok(m.local_rank(rank, mesh_dim(d))) == (*coord)[d]);
    }
  }
}

// A random non-empty ascending subset of the dims' names.
Names random_subset(std::mt19937_64& rng, const DeviceMesh& m) {
  Names out;
  while (out.empty()) {
    for (const std::string& n : m.names()) {
      if (rng() % 2 == 0) out.push_back(n);
    }
  }
  return out;
}

TEST_CASE("mesh properties: groups, coordinates and mesh tensors agree") {
  std::mt19937_64 rng(0x3e54);
  for (int trial = 0; trial < 60; ++trial) {
    DeviceMesh m =
        testing::random_mesh(rng, 4, trial % 2 ? RankMap::kShuffled : RankMap::kIdentity);
    check_invariants(m);
    check_invariants(testing::sliced(m, random_subset(rng, m)));
  }
}

TEST_CASE("mesh properties: groups of a flattened mesh are the product groups") {
  std::mt19937_64 rng(0xf1a7);
  for (int trial = 0; trial < 60; ++trial) {
    DeviceMesh m =
        testing::random_mesh(rng, 4, trial % 2 ? RankMap::kShuffled : RankMap::kIdentity);
    Names chosen = random_subset(rng, m);
    DeviceMesh f = testing::flat(testing::sliced(m, chosen));
    CHECK(f.size() == testing::sliced(m, chosen).size());
    check_invariants(f);
    std::vector<int> in_s;
    for (const std::string& n : chosen) in_s.push_back(index(ok(m.dim(n))));
    Ints shape = m.shape();
    // The flattened group of rank r: ranks agreeing with r outside the chosen dims, ordered
    // lexicographically by their coordinates on the chosen dims.
    std::map<Ints, std::map<std::int64_t, std::int64_t>> expect;  // outside coords -> (key, rank)
    for (std::int64_t rank : m.rank_map()) {
      Ints c = *m.coordinate(rank);
      Ints outside;
      Ints inside_shape;
      Ints inside;
      for (int d = 0; d < m.ndim(); ++d) {
        bool chosen_dim = std::find(in_s.begin(), in_s.end(), d) != in_s.end();
        (chosen_dim ? inside : outside).push_back(c[d]);
        if (chosen_dim) inside_shape.push_back(shape[d]);
      }
      expect[outside][linear(inside, inside_shape)] = rank;
    }
    std::vector<Ints> want;
    for (const auto& [outside, members] : expect) {
      Ints g;
      for (const auto& [key, rank] : members) g.push_back(rank);
      want.push_back(g);
    }
    std::vector<Ints> got = layout::to_rows(f.groups(MeshDim{0}));
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }
}

TEST_CASE("mesh properties: unflatten then flatten is the identity") {
  std::mt19937_64 rng(0x0f1a);
  for (int trial = 0; trial < 80; ++trial) {
    DeviceMesh m =
        testing::random_mesh(rng, 3, trial % 2 ? RankMap::kShuffled : RankMap::kIdentity);
    auto d = static_cast<int>(rng() % static_cast<unsigned>(m.ndim()));
    // A random factorisation of size(d) into 1..3 factors.
    Ints sizes;
    std::int64_t rest = m.size(mesh_dim(d));
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) {
      std::int64_t f = 1;
      for (std::int64_t c = 2; c <= rest; ++c) {
        if (rest % c == 0 && rng() % 2 == 0) f = c;
      }
      sizes.push_back(f);
      rest /= f;
    }
    sizes.push_back(rest);
    Names names;
    for (std::size_t i = 0; i < sizes.size(); ++i) names.push_back("u" + std::to_string(i));
    DeviceMesh u = ok(unflatten(m, d, sizes, names));
    REQUIRE(u.ndim() == m.ndim() - 1 + static_cast<int>(sizes.size()));
    check_invariants(u);
    DeviceMesh back = testing::flat(testing::sliced(u, names), "back" + std::to_string(trial));
    CHECK(back.dim_layout(MeshDim{0}) == m.dim_layout(mesh_dim(d)));
    CHECK(back.groups(MeshDim{0}) == m.groups(mesh_dim(d)));
    for (int other = 0; other < m.ndim(); ++other) {
      if (other == d) continue;
      int shifted = other < d ? other : other - 1 + static_cast<int>(sizes.size());
      CHECK(u.groups(mesh_dim(shifted)) == m.groups(mesh_dim(other)));
    }
  }
}

TEST_CASE("mesh properties: slicing then concatenating gives back the mesh") {
  std::mt19937_64 rng(0xc0ca7);
  for (int trial = 0; trial < 80; ++trial) {
    DeviceMesh m =
        testing::random_mesh(rng, 4, trial % 2 ? RankMap::kShuffled : RankMap::kIdentity);
    // Cut the dims into consecutive pieces, slice each and concatenate them again.
    std::vector<DeviceMesh> pieces;
    Names piece;
    for (const std::string& n : m.names()) {
      piece.push_back(n);
      if (rng() % 2 == 0) {
        pieces.push_back(testing::sliced(m, piece));
        piece.clear();
      }
    }
    if (!piece.empty()) pieces.push_back(testing::sliced(m, piece));
    DeviceMesh c = ok(concatenate(pieces));
    CHECK(c == m);
    for (int d = 0; d < m.ndim(); ++d) CHECK(c.groups(mesh_dim(d)) == m.groups(mesh_dim(d)));
    // Any ascending subset sliced piecewise equals the subset sliced at once.
    Names subset = random_subset(rng, m);
    std::vector<DeviceMesh> singles;
    for (const std::string& n : subset) singles.push_back(testing::sliced(m, {n}));
    CHECK(ok(concatenate(singles)) == testing::sliced(m, subset));
  }
}

}  // namespace
}  // namespace dtplan::mesh
