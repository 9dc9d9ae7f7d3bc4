#pragma once
// Test helpers for DeviceMesh: build meshes and read groups and tensors with short calls that fail
// the test on an unexpected error, and draw random meshes from a seeded generator.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "layout/int_tensor.h"
#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"

namespace dtplan::testing {

using Rows = std::vector<std::vector<std::int64_t>>;
using Ints = std::vector<std::int64_t>;
using Names = std::vector<std::string>;

template <class T>
T ok(core::Result<T> r) {
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  return std::move(r).value();
}

// The error message of a call that must fail.
template <class T>
std::string error_of(const core::Result<T>& r) {
  REQUIRE_MESSAGE(!r.ok(), "expected an error");
  return r.error().message;
}

inline mesh::DeviceMesh make_mesh(Ints shape, Names names) {
  return ok(mesh::DeviceMesh::create(std::move(shape), std::move(names)));
}

inline mesh::DeviceMesh sliced(const mesh::DeviceMesh& m, Names names) {
  return ok(mesh::slice(m, names));
}

inline mesh::DeviceMesh flat(const mesh::DeviceMesh& m, std::optional<std::string> name = {}) {
  return ok(mesh::flatten(m, std::move(name)));
}

// Every group of the named dim (or of a 1-D mesh when `name` is empty).
inline Rows groups(const mesh::DeviceMesh& m, std::string_view name = {}) {
  mesh::MeshDim d = name.empty() ? mesh::MeshDim{0} : ok(m.dim(name));
  return layout::to_rows(m.groups(d));
}

// The mesh tensor `rank` sees, as nested brackets.
inline std::string seen(const mesh::DeviceMesh& m, std::int64_t rank) {
  return layout::to_string(ok(m.mesh_tensor(rank)));
}

// A contiguous range [first, first + n) of ranks.
inline Ints range(std::int64_t first, std::int64_t n) {
  Ints out(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = first + static_cast<std::int64_t>(i);
  return out;
}

enum class RankMap : bool { kIdentity, kShuffled };

// A random mesh of 1..max_dims dims of sizes 1..4 named d0, d1, ..., over the identity rank map or
// a random permutation of distinct rank values 7, 10, 13, ...
inline mesh::DeviceMesh random_mesh(std::mt19937_64& rng, int max_dims, RankMap kind) {
  std::uniform_int_distribution<int> dims(1, max_dims);
  std::uniform_int_distribution<std::int64_t> sizes(1, 4);
  Ints shape;
  Names names;
  for (int i = dims(rng); i > 0; --i) {
    shape.push_back(sizes(rng));
    names.push_back("d" + std::to_string(names.size()));
  }
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  Ints ranks = range(0, n);
  if (kind == RankMap::kShuffled) {
    for (std::int64_t& r : ranks) r = r * 3 + 7;  // distinct, not 0..n-1
    std::shuffle(ranks.begin(), ranks.end(), rng);
  }
  return ok(mesh::DeviceMesh::from_ranks(shape, ranks, names));
}

}  // namespace dtplan::testing
