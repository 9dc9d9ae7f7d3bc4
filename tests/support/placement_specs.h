#pragma once
// TensorSpecs for the tests of lib/placement: specs from text, and random specs for property
// tests: meshes of 1-4 dims with at most `max_ranks` ranks (sizes 1..8), tensors of rank 1-3
// with uneven sizes (0..max_dim), random placements (R, P with a compatible op set, S, _S) and a
// random shard order per tensor dim.

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "placement/tensor_spec.h"

namespace dtplan::testing {

struct RandomSpecOptions {
  bool strided = true;        // draw _StridedShard placements
  bool partial = true;        // draw Partial placements
  bool shuffle_order = true;  // draw non-default shard orders
  std::int64_t max_ranks = 64;
  std::int64_t min_mesh_size = 1;
  std::int64_t max_dim = 20;  // tensor dim sizes are drawn from [0, max_dim]
};

// A spec from placement-list text; the test fails (REQUIRE) if it does not build.
placement::TensorSpec spec_of(std::vector<std::int64_t> shape, const std::string& placements,
                              const std::vector<std::int64_t>& mesh_sizes,
                              core::DType dtype = core::DType::kF32);

struct MeshAndSpec {
  std::vector<std::int64_t> mesh_sizes;
  placement::TensorSpec spec;

  // Number of ranks of the mesh.
  [[nodiscard]] std::int64_t world() const;
  // "bf16[9,4] S(0),R on [2,2]", for failure messages.
  [[nodiscard]] std::string describe() const;
};

// Mesh sizes of 1-4 dims, each in [min_size, 8], product at most max_ranks.
std::vector<std::int64_t> random_mesh_sizes(std::mt19937_64& rng, std::int64_t max_ranks,
                                            std::int64_t min_size = 1);

MeshAndSpec random_spec(std::mt19937_64& rng, const RandomSpecOptions& options = {});

// Calls visit(coord) for every coordinate of the mesh, row-major.
void for_each_coord(std::span<const std::int64_t> mesh_sizes,
                    const std::function<void(std::span<const std::int64_t>)>& visit);

// Uniform integer in [lo, hi].
std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi);

}  // namespace dtplan::testing
