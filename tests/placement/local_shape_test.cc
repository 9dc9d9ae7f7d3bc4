#include "placement/local_shape.h"

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/strings.h"
#include "placement/chunk.h"
#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

using core::DType;
using Sizes = std::vector<std::int64_t>;
using testing::spec_of;

// Local shapes of every rank, row-major over the mesh.
std::vector<Sizes> all_local_shapes(const TensorSpec& spec, const Sizes& mesh) {
  std::vector<Sizes> out;
  testing::for_each_coord(mesh, [&](std::span<const std::int64_t> coord) {
    out.push_back(local_shape(spec, mesh, coord).value());
  });
  return out;
}

TEST_CASE("nested torch.chunk: the L = 9 example of redistribute.md 1.3") {
  CHECK(all_local_shapes(spec_of({9}, "S(0),S(0)", {2, 2}), {2, 2}) ==
        std::vector<Sizes>{{3}, {2}, {2}, {2}});
  // Chunking over the flattened mesh differs: 3,3,3,0.
  CHECK(all_local_shapes(spec_of({9}, "S(0)", {4}), {4}) == std::vector<Sizes>{{3}, {3}, {3}, {0}});
  // The uneven all-gather merge defect (docs/reference/placements.md §4.6): (5,3) [S0,S0] on 2x2
  // nests as 2/1/1/1.
  CHECK(all_local_shapes(spec_of({5, 3}, "S(0),S(0)", {2, 2}), {2, 2}) ==
        std::vector<Sizes>{{2, 3}, {1, 3}, {1, 3}, {1, 3}});
}

TEST_CASE("local sizes of the redistribute.md 6.1 cases") {
  const Sizes mesh = {4};
  // #6 / #13: torch.chunk local shapes of the six shapes.
  CHECK(all_local_shapes(spec_of({12, 3}, "S(0)", mesh), mesh) ==
        std::vector<Sizes>{{3, 3}, {3, 3}, {3, 3}, {3, 3}});
  CHECK(all_local_shapes(spec_of({13, 3}, "S(0)", mesh), mesh) ==
        std::vector<Sizes>{{4, 3}, {4, 3}, {4, 3}, {1, 3}});
  CHECK(all_local_shapes(spec_of({14, 3}, "S(0)", mesh), mesh) ==
        std::vector<Sizes>{{4, 3}, {4, 3}, {4, 3}, {2, 3}});
  CHECK(all_local_shapes(spec_of({3, 13}, "S(1)", mesh), mesh) ==
        std::vector<Sizes>{{3, 4}, {3, 4}, {3, 4}, {3, 1}});
  // #27: (2,8) S0 on 4 ranks; #29: S1 gives (2,2) everywhere; #28: R is the full tensor.
  CHECK(all_local_shapes(spec_of({2, 8}, "S(0)", mesh), mesh) ==
        std::vector<Sizes>{{1, 8}, {1, 8}, {0, 8}, {0, 8}});
  CHECK(all_local_shapes(spec_of({2, 8}, "S(1)", mesh), mesh) ==
        std::vector<Sizes>{{2, 2}, {2, 2}, {2, 2}, {2, 2}});
  CHECK(all_local_shapes(spec_of({2, 8}, "R", mesh), mesh) ==
        std::vector<Sizes>{{2, 8}, {2, 8}, {2, 8}, {2, 8}});
  // #23: a size-1 mesh dim splits nothing.
  CHECK(all_local_shapes(spec_of({16, 8}, "S(0),S(1)", {4, 1}), {4, 1}) ==
        std::vector<Sizes>{{4, 8}, {4, 8}, {4, 8}, {4, 8}});
  // #15: smaller than the mesh.
  CHECK(all_local_shapes(spec_of({1, 3}, "S(0),S(1)", {2, 2}), {2, 2}) ==
        std::vector<Sizes>{{1, 2}, {1, 1}, {0, 2}, {0, 1}});
}

TEST_CASE("StridedShard local shapes and the shard order change who splits first") {
  CHECK(all_local_shapes(spec_of({9}, "_S(0,2)", {4}), {4}) ==
        std::vector<Sizes>{{3}, {3}, {2}, {1}});
  // [9] on (2,2) with mesh dim 1 first: 9 -> 5|4 over mesh dim 1, then 5 -> 3,2 and 4 -> 2,2.
  CHECK(all_local_shapes(spec_of({9}, "S(0)[1],S(0)[0]", {2, 2}), {2, 2}) ==
        std::vector<Sizes>{{3}, {2}, {2}, {2}});
  CHECK(all_local_shapes(spec_of({9}, "S(0)[1],S(0)[0]", {4, 2}), {4, 2}) ==
        std::vector<Sizes>{{2}, {1}, {2}, {1}, {1}, {1}, {0}, {1}});
}

TEST_CASE("logical shapes, shape_after, bytes and shard counts") {
  const Sizes mesh = {2, 2};
  TensorSpec spec = spec_of({9, 6}, "S(0),S(0)", mesh);
  CHECK(logical_shape(spec, mesh, Sizes{1, 0}, 1).value() == Sizes{4, 6});
  CHECK(logical_shape(spec, mesh, Sizes{0, 1}, 1).value() == Sizes{5, 6});
  CHECK(logical_shape(spec, mesh, Sizes{1, 1}, 0).value() == Sizes{9, 6});
  CHECK(shape_after(spec, mesh, Sizes{1, 1}, 0).value() == Sizes{9, 6});
  CHECK(shape_after(spec, mesh, Sizes{1, 1}, 0b01).value() == Sizes{4, 6});
  // Mesh dim 1 is nested under mesh dim 0: without mesh dim 0 it is not applied either.
  CHECK(shape_after(spec, mesh, Sizes{1, 1}, 0b10).value() == Sizes{9, 6});
  CHECK_FALSE(logical_shape(spec, mesh, Sizes{0, 0}, 2).ok());
  // The greedy planner's logical shapes for [P,P,S0] on (2,2,2)
  // (docs/reference/placements.md §3.3): all global.
  TensorSpec pps = spec_of({8, 8}, "P(sum),P(sum),S(0)", {2, 2, 2});
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(shape_after(pps, Sizes{2, 2, 2}, Sizes{1, 1, 1}, (1U << i) - 1).value() == Sizes{8, 8});
  }
  // Other tensor dims stay split in the logical shape (it is the tensor the group sees).
  TensorSpec s01 = spec_of({8, 6}, "S(0),S(1)", mesh);
  CHECK(logical_shape(s01, mesh, Sizes{0, 0}, 0).value() == Sizes{8, 3});
  CHECK(local_bytes(spec_of({9, 6}, "S(0),S(0)", mesh, DType::kBF16), mesh, Sizes{0, 0}).value() ==
        3 * 6 * 2);
  // A zero-size dim next to a huge one (a fuzz find): 0 bytes, not an overflowing product.
  const Sizes mesh3 = {4, 2, 2};
  TensorSpec empty =
      spec_of({5555505100000000000, 0, 6}, "S(1)[0],S(1)[1],S(0)", mesh3, DType::kF64);
  CHECK(local_bytes(empty, mesh3, Sizes{0, 0, 0}).value() == 0);
  CHECK(num_shards(spec_of({8}, "S(0),R,_S(0,2)", {2, 3, 4}), Sizes{2, 3, 4}).value() == 8);
  CHECK(num_shards(spec_of({8}, "P(sum),R", mesh), mesh).value() == 1);
  CHECK_FALSE(local_shape(spec, Sizes{2, 2}, Sizes{0, 2}).ok());
  CHECK_FALSE(local_shape(spec, Sizes{4}, Sizes{0}).ok());
  CHECK_FALSE(local_shape(spec, Sizes{2, 2}, Sizes{}).ok());
  Sizes wrong(3);
  CHECK(local_shape_into(spec, Sizes{2, 2}, Sizes{0, 0}, wrong).error().kind ==
        core::ErrorKind::kInternal);
}

TEST_CASE("evenness per mesh dim") {
  const Sizes mesh = {2, 2};
  auto even = [&](const TensorSpec& spec, std::size_t m, const Sizes& sizes) {
    return is_evenly_sharded(spec, sizes, m).value();
  };
  TensorSpec nine = spec_of({9}, "S(0),S(0)", mesh);
  CHECK_FALSE(even(nine, 0, mesh));
  CHECK_FALSE(even(nine, 1, mesh));
  TensorSpec ten = spec_of({10}, "S(0),S(0)", mesh);  // 5|5, then 5 -> 3,2
  CHECK(even(ten, 0, mesh));
  CHECK_FALSE(even(ten, 1, mesh));
  CHECK_FALSE(is_evenly_sharded(ten, mesh).value());
  CHECK(is_evenly_sharded(spec_of({8}, "S(0),S(0)", mesh), mesh).value());
  CHECK(even(spec_of({9}, "R,P(sum)", mesh), 0, mesh));
  // StridedShard: every piece must divide; [6] with sf 4 has pieces 2,2,2,0.
  CHECK(even(spec_of({6}, "_S(0,4)", {2}), 0, {2}));
  CHECK_FALSE(even(spec_of({9}, "_S(0,2)", {4}), 0, {4}));
  CHECK_FALSE(is_evenly_sharded(nine, mesh, 2).ok());
}

TEST_CASE("property: local shapes, logical shapes and evenness on random uneven specs") {
  std::mt19937_64 rng(0x5eed0005);
  for (int iter = 0; iter < 600; ++iter) {
    testing::MeshAndSpec r = testing::random_spec(rng);
    const TensorSpec& spec = r.spec;
    const Sizes& mesh = r.mesh_sizes;
    const std::string text = r.describe();
    const std::int64_t world = r.world();
    const std::int64_t shards = num_shards(spec, mesh).value();
    std::int64_t total_numel = 0;
    // For each mesh dim, the set of lengths each group splits and whether it came out equal.
    std::vector<bool> brute_even(mesh.size(), true);
    testing::for_each_coord(mesh, [&](std::span<const std::int64_t> coord) {
      const Sizes local = local_shape(spec, mesh, coord).value();
      Sizes into(spec.tensor_rank());
      REQUIRE(local_shape_into(spec, mesh, coord, into).ok());
      CHECK(into == local);
      CHECK(shape_after(spec, mesh, coord, kAllMeshDims).value() == local);
      CHECK(shape_after(spec, mesh, coord, 0).value() == spec.shape());
      std::int64_t numel = 1;
      for (std::size_t t = 0; t < local.size(); ++t) {
        CHECK(local[t] >= 0);
        CHECK(local[t] <= spec.shape()[t]);
        numel *= local[t];
      }
      total_numel += numel;
      CHECK(local_bytes(spec, mesh, coord).value() == numel * 2);
      for (std::size_t m = 0; m < mesh.size(); ++m) {
        const Sizes logical = logical_shape(spec, mesh, coord, m).value();
        const Placement& p = spec.placement(m);
        if (!p.is_shard_like()) {
          CHECK_MESSAGE(logical == local, text);
          continue;
        }
        const auto t = static_cast<std::size_t>(p.dim());
        for (std::size_t u = 0; u < local.size(); ++u) {
          if (u != t) CHECK_MESSAGE(logical[u] == local[u], text);
        }
        if (spec.shard_order().last_mesh_dim(p.dim()) == static_cast<std::int32_t>(m)) {
          CHECK_MESSAGE(split_length(p, logical[t], mesh[m], coord[m]) == local[t], text);
        }
        std::set<std::int64_t> lengths;
        for (std::int64_t rr = 0; rr < mesh[m]; ++rr) {
          lengths.insert(split_length(p, logical[t], mesh[m], rr));
        }
        if (lengths.size() > 1) brute_even[m] = false;
      }
    });
    // Each element is held by world / num_shards ranks (replicas and partial holders).
    CHECK_MESSAGE(total_numel == spec.numel() * (world / shards), text);
    for (std::size_t m = 0; m < mesh.size(); ++m) {
      CHECK_MESSAGE(is_evenly_sharded(spec, mesh, m).value() == brute_even[m], text);
    }
  }
}

}  // namespace
}  // namespace dtplan::placement
