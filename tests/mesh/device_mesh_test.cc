#include "mesh/device_mesh.h"

#include <doctest/doctest.h>

#include "mesh/mesh_ops.h"
#include "support/layout_gen.h"
#include "support/mesh_gen.h"

namespace dtplan::mesh {
namespace {

using testing::flat;
using testing::groups;
using testing::Ints;
using testing::lay;
using testing::make_mesh;
using testing::Names;
using testing::ok;
using testing::range;
using testing::Rows;
using testing::seen;
using testing::sliced;

TEST_CASE("DeviceMesh: sizes, names, layouts and repr") {
  DeviceMesh m = make_mesh({2, 4}, {"dp", "tp"});
  CHECK(m.ndim() == 2);
  CHECK(m.size() == 8);
  CHECK(m.size(MeshDim{1}) == 4);
  CHECK(m.shape() == Ints{2, 4});
  CHECK(m.dim_name(MeshDim{0}) == "dp");
  CHECK(m.dim_layout(MeshDim{0}) == lay("2:4"));
  CHECK(m.is_root());
  CHECK(m.copies() == 1);
  CHECK(m.repr() == "DeviceMesh((dp=2, tp=4), stride=(4, 1))");
  DeviceMesh unnamed = make_mesh({2, 4}, {});
  CHECK(unnamed.repr() == "DeviceMesh((2, 4), stride=(4, 1))");
  CHECK(unnamed.dim_name(MeshDim{1}) == "dim_1");
  CHECK_FALSE(unnamed.has_names());
  DeviceMesh one = make_mesh({8}, {"w"});
  CHECK(one.layout() == lay("8:1"));  // a 1-D dim of one flat mode prints as a scalar layout
  CHECK(one.repr() == "DeviceMesh((w=8,), stride=(1,))");
  DeviceMesh m3 = make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  DeviceMesh dp_tp = flat(sliced(m3, {"dp", "tp"}));
  CHECK(dp_tp.repr() == "DeviceMesh((dp_tp=4,), stride=((4, 1),))");
  CHECK_FALSE(dp_tp.is_root());
  CHECK(dp_tp.root() == m3);
  CHECK(dp_tp.root().is_root());
}

TEST_CASE("DeviceMesh: size-1 dims are normalised to 1:1 and never break the order rule") {
  DeviceMesh m = make_mesh({1, 8}, {"pp", "dp"});
  CHECK(m.dim_layouts() == std::vector<layout::Layout>{lay("1:1"), lay("8:1")});
  CHECK(m.layout() == lay("(1,8):(1,1)"));
  CHECK(groups(m, "pp") == Rows{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
  CHECK(groups(m, "dp") == Rows{range(0, 8)});
  CHECK(sliced(m, {"dp"}).layout() == lay("8:1"));
  CHECK(ok(slice(m, Names{"dp", "pp"})).shape() == Ints{8, 1});  // equal strides pass
  CHECK(m.coordinate(5) == Ints{0, 5});
}

TEST_CASE("DeviceMesh: coordinates and local ranks") {
  // DeviceMesh(arange(10)).get_coordinate() == [5] on rank 5.
  DeviceMesh line = ok(DeviceMesh::from_ranks({10}, range(0, 10), {}));
  CHECK(line.coordinate(5) == Ints{5});
  CHECK(ok(line.local_rank(5, std::nullopt)) == 5);  // 1-D: the dim may be omitted
  DeviceMesh m = make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  CHECK(ok(m.local_rank(6, MeshDim{1})) == 1);
  CHECK_FALSE(m.coordinate(8).has_value());
  // With an identity rank map the local rank in a whole-mesh flatten is the rank itself.
  DeviceMesh all = flat(m);
  for (std::int64_t r = 0; r < 8; ++r) CHECK(ok(all.local_rank(r, std::nullopt)) == r);
}

TEST_CASE("DeviceMesh: equality is rank map + layout + names (2.1)") {
  DeviceMesh a = make_mesh({2, 4}, {"dp", "tp"});
  DeviceMesh b = make_mesh({2, 4}, {"dp", "tp"});
  CHECK(a == b);  // built independently
  CHECK_FALSE(a == make_mesh({2, 4}, {"dp", "sp"}));
  CHECK_FALSE(a == make_mesh({4, 2}, {"dp", "tp"}));
  // mesh_2d["tp"] is not a standalone 4-rank mesh: the rank maps [0..7] and [0..3] differ.
  DeviceMesh tp = sliced(a, {"tp"});
  CHECK_FALSE(tp == make_mesh({4}, {"tp"}));
  CHECK(tp.layout() == make_mesh({4}, {"tp"}).layout());
  CHECK_FALSE(make_mesh({4}, {}) == ok(DeviceMesh::from_ranks({4}, {0, 1, 3, 2}, {})));
}

TEST_CASE("DeviceMesh: from_layout builds the private _layout/_rank_map path") {
  DeviceMesh m = ok(DeviceMesh::from_layout({4, 5, 6, 7}, {lay("2:2"), lay("2:1")}, {"dp", "tp"}));
  CHECK(m == ok(DeviceMesh::from_ranks({2, 2}, {4, 5, 6, 7}, {"dp", "tp"})));
  // Dims are coalesced, so an equal function compares equal.
  DeviceMesh c = ok(DeviceMesh::from_layout(range(0, 8), {lay("(2,4):(4,1)")}, {"w"}));
  CHECK(c.dim_layout(MeshDim{0}) == lay("8:1"));
  // A sub-layout of a larger rank map has several copies.
  DeviceMesh sub = ok(DeviceMesh::from_layout(range(0, 8), {lay("2:2")}, {"x"}));
  CHECK(sub.copies() == 4);
  CHECK(groups(sub) == Rows{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
}

TEST_CASE("DeviceMesh: all submeshes of a dim (2.8)") {
  DeviceMesh m = make_mesh({2, 4}, {"replicate", "shard"});
  std::vector<DeviceMesh> subs = ok(all_submeshes(m, "replicate"));
  REQUIRE(subs.size() == 4);
  for (std::size_t i = 0; i < subs.size(); ++i) {
    auto r = static_cast<std::int64_t>(i);
    CHECK(subs[i].size() == 2);
    CHECK(subs[i].is_root());
    CHECK(subs[i].names() == Names{"replicate"});
    CHECK(Ints(subs[i].rank_map().begin(), subs[i].rank_map().end()) == Ints{r, r + 4});
  }
  std::vector<DeviceMesh> irregular = ok(all_submeshes(
      ok(DeviceMesh::from_layout(range(0, 8), {lay("(2,2):(4,1)"), lay("2:2")}, {"a", "b"})), "a"));
  REQUIRE(irregular.size() == 2);  // a multi-mode dim is nested: one 1-D submesh per group (G2)
  CHECK(seen(irregular[1], 2) == "[2,3,6,7]");
}

TEST_CASE("DeviceMesh: concatenation gives back the mesh (2.8)") {
  DeviceMesh m2 = make_mesh({2, 4}, {"dp", "tp"});
  std::vector<DeviceMesh> parts = {sliced(m2, {"dp"}), sliced(m2, {"tp"})};
  DeviceMesh c = ok(concatenate(parts));
  CHECK(c == m2);
  CHECK(groups(c, "dp") == groups(m2, "dp"));
  CHECK(seen(c, 3) == seen(m2, 3));
  DeviceMesh m3 = make_mesh({2, 2, 2}, {"pp", "dp", "tp"});
  std::vector<DeviceMesh> parts3 = {sliced(m3, {"pp", "dp"}), sliced(m3, {"tp"})};
  CHECK(ok(concatenate(parts3)) == m3);
  // No order check, as in PyTorch: a transposed concatenation is allowed.
  std::vector<DeviceMesh> transposed = {sliced(m2, {"tp"}), sliced(m2, {"dp"})};
  CHECK(ok(concatenate(transposed)).shape() == Ints{4, 2});
}

TEST_CASE("DeviceMesh: slicing returns self, works on slices and keeps the root (2.5)") {
  DeviceMesh one = make_mesh({4}, {"w"});
  CHECK(sliced(one, {"w"}).is_root());
  CHECK(flat(one).is_root());  // a 1-D mesh flattened under its own name is itself
  DeviceMesh m = make_mesh({2, 2, 4}, {"Replicate", "Shard", "TP"});
  DeviceMesh hsdp = sliced(m, {"Replicate", "Shard"});
  DeviceMesh shard = sliced(hsdp, {"Shard"});
  CHECK(shard.root() == m);
  CHECK(shard.layout() == lay("2:4"));
  // Non-contiguous dims keep their strides: (dp, cp) out of (dp, pp, cp).
  DeviceMesh dpc = sliced(make_mesh({2, 2, 2}, {"dp", "pp", "cp"}), {"dp", "cp"});
  CHECK(dpc.dim_layouts() == std::vector<layout::Layout>{lay("2:4"), lay("2:1")});
  CHECK(seen(dpc, 2) == "[[2,3],[6,7]]");
}

TEST_CASE("DeviceMesh: unflatten of the world equals init_device_mesh (2.7)") {
  DeviceMesh world = make_mesh({8}, {"world"});
  DeviceMesh u1 = ok(unflatten(world, 0, Ints{2, 2, 2}, Names{"a", "b", "c"}));
  DeviceMesh u2 = ok(unflatten(world, 0, Ints{2, 2, 2}, Names{"x", "y", "z"}));
  CHECK(u1.dim_layouts() == make_mesh({2, 2, 2}, {"a", "b", "c"}).dim_layouts());
  CHECK(u1 == make_mesh({2, 2, 2}, {"a", "b", "c"}));
  for (int d = 0; d < 3; ++d) CHECK(u1.groups(mesh_dim(d)) == u2.groups(mesh_dim(d)));
  DeviceMesh u3 = ok(unflatten(world, 0, Ints{4, 2, 1}, Names{"a", "b", "c"}));
  CHECK(u3.dim_layouts() == std::vector<layout::Layout>{lay("4:2"), lay("2:1"), lay("1:1")});
}

}  // namespace
}  // namespace dtplan::mesh
