#include "placement/owned_indices.h"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/strings.h"
#include "placement/local_shape.h"
#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

using core::DType;
using Sizes = std::vector<std::int64_t>;
using testing::spec_of;
using Indices = std::vector<std::int64_t>;

// Indices of tensor dim `t` per rank, row-major over the mesh.
std::vector<Indices> owned_by_rank(const TensorSpec& spec, const Sizes& mesh, std::size_t t) {
  std::vector<Indices> out;
  testing::for_each_coord(mesh, [&](std::span<const std::int64_t> coord) {
    out.push_back(owned_indices(spec, mesh, coord, t).value().to_vector());
  });
  return out;
}

TEST_CASE("StridedShard index map N=9, sf=2, m=4 (the _to_replicate_tensor docstring)") {
  const Sizes mesh = {4};
  CHECK(owned_by_rank(spec_of({9}, "_S(0,2)", mesh), mesh, 0) ==
        std::vector<Indices>{{0, 1, 5}, {2, 3, 6}, {4, 7}, {8}});
  CHECK(owner_of_index(spec_of({9}, "_S(0,2)", mesh), mesh, 0, 7).value() == IndexOwner{{2}, 1});
}

TEST_CASE("the 2-D example of device_mesh.md 4.2: FSDP2 + TP rows") {
  const Sizes mesh = {2, 2};  // (dp, tp), ranks 0..3 = (0,0),(0,1),(1,0),(1,1)
  CHECK(owned_by_rank(spec_of({8, 4}, "S(0),S(0)", mesh), mesh, 0) ==
        std::vector<Indices>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(owned_by_rank(spec_of({8, 4}, "_S(0,2),S(0)", mesh), mesh, 0) ==
        std::vector<Indices>{{0, 1}, {4, 5}, {2, 3}, {6, 7}});
  // The same rows as S(0) over the (tp, dp)-ordered flattening: mesh dim 1 splits first.
  CHECK(owned_by_rank(spec_of({8, 4}, "S(0)[1],S(0)[0]", mesh), mesh, 0) ==
        owned_by_rank(spec_of({8, 4}, "_S(0,2),S(0)", mesh), mesh, 0));
  // Tensor dim 1 is not split: every rank owns all columns.
  CHECK(owned_by_rank(spec_of({8, 4}, "_S(0,2),S(0)", mesh), mesh, 1) ==
        std::vector<Indices>(4, Indices{0, 1, 2, 3}));
}

TEST_CASE("blocks and offsets, with torch.chunk's clamped offsets for empty pieces") {
  const Sizes mesh = {4};
  CHECK(local_block(spec_of({13, 3}, "S(0)", mesh), mesh, Sizes{3}).value() ==
        LocalBlock{{1, 3}, {12, 0}});
  CHECK(local_block(spec_of({5}, "S(0)", mesh), mesh, Sizes{3}).value() == LocalBlock{{0}, {5}});
  CHECK(local_block(spec_of({2, 8}, "S(0)", mesh), mesh, Sizes{2}).value() ==
        LocalBlock{{0, 8}, {2, 0}});
  // Nested: [9] on (2,2) -> 5|4 -> (1,1) holds [7,9).
  CHECK(local_block(spec_of({9}, "S(0),S(0)", {2, 2}), Sizes{2, 2}, Sizes{1, 1}).value() ==
        LocalBlock{{2}, {7}});
  auto strided = local_block(spec_of({9}, "_S(0,2)", mesh), mesh, Sizes{0});
  REQUIRE_FALSE(strided.ok());
  CHECK(strided.error().kind == core::ErrorKind::kUnsupported);
  CHECK(strided.error().message.find("[0,2)[5,6)") != std::string::npos);
  // A strided rank whose indices happen to be contiguous has a block.
  CHECK(local_block(spec_of({9}, "_S(0,2)", mesh), mesh, Sizes{3}).value() == LocalBlock{{1}, {8}});
  CHECK_FALSE(owner_of_index(spec_of({9}, "S(0)", mesh), mesh, 0, 9).ok());
  CHECK_FALSE(owned_indices(spec_of({9}, "S(0)", mesh), mesh, Sizes{0}, 1).ok());
}

TEST_CASE("property: owned index sets partition every tensor dim on random uneven specs") {
  std::mt19937_64 rng(0x5eed0006);
  for (int iter = 0; iter < 600; ++iter) {
    testing::MeshAndSpec r = testing::random_spec(rng);
    const TensorSpec& spec = r.spec;
    const Sizes& mesh = r.mesh_sizes;
    const std::string text = r.describe();
    for (std::size_t t = 0; t < spec.tensor_rank(); ++t) {
      const std::int64_t length = spec.shape()[t];
      // Mesh dims splitting t; the others must not change what a rank owns of t.
      std::vector<bool> splits(mesh.size(), false);
      for (const ShardStep& s : spec.shard_order().steps_of(static_cast<std::int32_t>(t))) {
        splits[static_cast<std::size_t>(s.mesh_dim)] = true;
      }
      // key = coordinates on the other mesh dims -> how often each index is owned.
      std::map<Sizes, std::vector<int>> owners;
      testing::for_each_coord(mesh, [&](std::span<const std::int64_t> coord) {
        const IndexSet set = owned_indices(spec, mesh, coord, t).value();
        CHECK_MESSAGE(set.count() == local_shape(spec, mesh, coord).value()[t], text);
        Sizes key;
        Sizes canonical(coord.begin(), coord.end());
        for (std::size_t m = 0; m < mesh.size(); ++m) {
          if (!splits[m]) {
            key.push_back(coord[m]);
            canonical[m] = 0;
          }
        }
        // Replicas (ranks differing only on non-splitting mesh dims) own identical sets.
        CHECK_MESSAGE(owned_indices(spec, mesh, canonical, t).value() == set, text);
        std::vector<int>& count = owners[key];
        count.resize(static_cast<std::size_t>(length), 0);
        const Indices idx = set.to_vector();
        for (std::size_t l = 0; l < idx.size(); ++l) {
          ++count[static_cast<std::size_t>(idx[l])];
          if (l > 0) CHECK(idx[l - 1] < idx[l]);
          // The inverse map finds this rank (on the splitting dims) and the local index.
          const IndexOwner owner = owner_of_index(spec, mesh, t, idx[l]).value();
          CHECK(owner.local == static_cast<std::int64_t>(l));
          for (std::size_t m = 0; m < mesh.size(); ++m) {
            CHECK(owner.coord[m] == (splits[m] ? coord[m] : -1));
          }
        }
        if (set.contiguous() && !set.empty()) CHECK(set.offset() == idx.front());
      });
      for (const auto& [key, count] : owners) {
        for (int c : count) CHECK_MESSAGE(c == 1, text);
      }
    }
    // Without StridedShard every rank has a block, and its offsets are the owned sets' firsts.
    if (!spec.has_strided_shard()) {
      testing::for_each_coord(mesh, [&](std::span<const std::int64_t> coord) {
        const LocalBlock block = local_block(spec, mesh, coord).value();
        CHECK(block.shape == local_shape(spec, mesh, coord).value());
        for (std::size_t t = 0; t < spec.tensor_rank(); ++t) {
          CHECK(block.offset[t] == owned_indices(spec, mesh, coord, t).value().offset());
          CHECK(block.offset[t] + block.shape[t] <= spec.shape()[t]);
        }
      });
    }
  }
}

}  // namespace
}  // namespace dtplan::placement
