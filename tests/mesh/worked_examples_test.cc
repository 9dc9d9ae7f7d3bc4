// The worked examples of docs/reference/device_mesh.md §2.9 (A to E), pinned exactly.

#include <doctest/doctest.h>

#include "layout/layout_text.h"
#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"
#include "support/layout_gen.h"
#include "support/mesh_gen.h"

namespace dtplan::mesh {
namespace {

using testing::error_of;
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

std::vector<layout::Layout> dims_of(std::initializer_list<const char*> texts) {
  std::vector<layout::Layout> out;
  for (const char* t : texts) out.push_back(lay(t));
  return out;
}

TEST_CASE("2.9 A: init_device_mesh((2,4), (dp,tp))") {
  DeviceMesh m = make_mesh({2, 4}, {"dp", "tp"});
  CHECK(m.layout() == lay("(2,4):(4,1)"));
  CHECK(Ints(m.rank_map().begin(), m.rank_map().end()) == range(0, 8));
  CHECK(groups(m, "dp") == Rows{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(groups(m, "tp") == Rows{{0, 1, 2, 3}, {4, 5, 6, 7}});
  for (std::int64_t r = 0; r < 8; ++r) CHECK(m.coordinate(r) == Ints{r / 4, r % 4});
  CHECK(m.coordinate(6) == Ints{1, 2});
  DeviceMesh tp = sliced(m, {"tp"});
  CHECK(tp.layout() == lay("4:1"));
  CHECK(tp.copies() == 2);
  for (std::int64_t r = 0; r < 8; ++r) CHECK(seen(tp, r) == (r < 4 ? "[0,1,2,3]" : "[4,5,6,7]"));
  DeviceMesh dp = sliced(m, {"dp"});
  CHECK(dp.layout() == lay("2:4"));
  CHECK(dp.copies() == 4);
  for (std::int64_t r = 0; r < 8; ++r) {
    CHECK(ok(dp.mesh_tensor(r)).values == Ints{r % 4, r % 4 + 4});
  }
  CHECK(error_of(slice(m, Names{"tp", "dp"})).find("ascending order") != std::string::npos);
  DeviceMesh same = sliced(m, {"dp", "tp"});
  CHECK(same == m);
  CHECK(same.is_root());
  DeviceMesh dp_tp = flat(same);
  CHECK(dp_tp.names() == Names{"dp_tp"});
  CHECK(dp_tp.layout() == lay("8:1"));
  CHECK(groups(dp_tp) == Rows{range(0, 8)});
  DeviceMesh u = ok(unflatten(m, 1, Ints{2, 2}, Names{"a", "b"}));
  CHECK(u.dim_layouts() == dims_of({"2:4", "2:2", "2:1"}));
  CHECK(u.names() == Names{"dp", "a", "b"});
  CHECK(groups(u, "a") == Rows{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(groups(u, "b") == Rows{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
}

TEST_CASE("2.9 B: init_device_mesh((2,2,2), (dp,cp,tp))") {
  DeviceMesh m = make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  CHECK(m.layout() == lay("(2,2,2):(4,2,1)"));
  CHECK(groups(m, "dp") == Rows{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(groups(m, "cp") == Rows{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(groups(m, "tp") == Rows{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  DeviceMesh dp_cp_slice = sliced(m, {"dp", "cp"});
  CHECK(dp_cp_slice.dim_layouts() == dims_of({"2:4", "2:2"}));
  CHECK(seen(dp_cp_slice, 0) == "[[0,2],[4,6]]");
  DeviceMesh dp_tp_slice = sliced(m, {"dp", "tp"});
  CHECK(dp_tp_slice.dim_layouts() == dims_of({"2:4", "2:1"}));
  for (std::int64_t r : {0, 1, 4, 5}) CHECK(seen(dp_tp_slice, r) == "[[0,1],[4,5]]");
  for (std::int64_t r : {2, 3, 6, 7}) CHECK(seen(dp_tp_slice, r) == "[[2,3],[6,7]]");
  CHECK(dp_tp_slice.coordinate(5) == Ints{1, 1});
  DeviceMesh cp_tp_slice = sliced(m, {"cp", "tp"});
  CHECK(cp_tp_slice.dim_layouts() == dims_of({"2:2", "2:1"}));
  CHECK(seen(cp_tp_slice, 0) == "[[0,1],[2,3]]");
  CHECK(seen(cp_tp_slice, 4) == "[[4,5],[6,7]]");

  DeviceMesh dp_cp = flat(dp_cp_slice);
  CHECK(dp_cp.layout() == lay("4:2"));
  CHECK(groups(dp_cp) == Rows{{0, 2, 4, 6}, {1, 3, 5, 7}});
  CHECK(seen(dp_cp, 3) == "[1,3,5,7]");
  DeviceMesh mixed = sliced(m, {"dp_cp", "tp"});
  CHECK(mixed.dim_layouts() == dims_of({"4:2", "2:1"}));
  CHECK(seen(mixed, 0) == "[[0,1],[2,3],[4,5],[6,7]]");

  DeviceMesh dp_tp = flat(dp_tp_slice);
  CHECK(dp_tp.layout() == lay("((2,2)):((4,1))"));
  CHECK(groups(dp_tp) == Rows{{0, 1, 4, 5}, {2, 3, 6, 7}});
  CHECK(seen(dp_tp, 3) == "[2,3,6,7]");
  CHECK(error_of(slice(m, Names{"dp_tp", "cp"})).find("ascending order") != std::string::npos);
  CHECK(error_of(slice(m, Names{"cp", "dp_tp"})).find("ascending order") != std::string::npos);
  CHECK(sliced(m, {"dp_tp"}) == dp_tp);  // G2: a non-contiguous flattened dim alone is fine

  DeviceMesh dummy = flat(cp_tp_slice, "dummy");
  CHECK(dummy.layout() == lay("4:1"));
  CHECK(sliced(m, {"dummy"}).layout() == lay("4:1"));

  CHECK(error_of(slice(m, Names{"dp_cp", "cp"})) ==
        "Slicing overlapping dim_names ('dp_cp', 'cp') is not allowed.");
  CHECK(error_of(slice(m, Names{"dp", "dp_cp"})) ==
        "Slicing overlapping dim_names ('dp', 'dp_cp') is not allowed.");
  CHECK(error_of(flatten(m, "dp")).find("dp already exists for submesh of the DeviceMesh") !=
        std::string::npos);
  CHECK(error_of(flatten(cp_tp_slice, "dp_tp"))
            .starts_with("Flatten mesh with mesh_dim_name dp_tp has been created before"));
  std::size_t registered = m.root_record()->flattened().size();
  CHECK(flat(sliced(m, {"dp", "cp"})) == dp_cp);
  CHECK(m.root_record()->flattened().size() == registered);
}

TEST_CASE("2.9 C: init_device_mesh((8,8), (dp,tp)), world 64") {
  DeviceMesh m = make_mesh({8, 8}, {"dp", "tp"});
  CHECK(m.layout() == lay("(8,8):(8,1)"));
  Rows dp = groups(m, "dp");
  Rows tp = groups(m, "tp");
  REQUIRE(dp.size() == 8);
  REQUIRE(tp.size() == 8);
  for (std::int64_t c = 0; c < 8; ++c) {
    CHECK(dp[static_cast<std::size_t>(c)] ==
          Ints{c, c + 8, c + 16, c + 24, c + 32, c + 40, c + 48, c + 56});
    CHECK(tp[static_cast<std::size_t>(c)] == range(8 * c, 8));
  }
  CHECK(m.coordinate(29) == Ints{3, 5});
  CHECK(seen(sliced(m, {"tp"}), 29) == "[24,25,26,27,28,29,30,31]");
  CHECK(seen(sliced(m, {"dp"}), 29) == "[5,13,21,29,37,45,53,61]");

  DeviceMesh u = ok(unflatten(m, "dp", Ints{2, 4}, Names{"dp_rep", "dp_shard"}));
  CHECK(u.dim_layouts() == dims_of({"2:32", "4:8", "8:1"}));
  Rows rep = groups(u, "dp_rep");
  CHECK(rep.size() == 32);
  CHECK(rep[0] == Ints{0, 32});
  CHECK(rep[1] == Ints{1, 33});
  Rows shard = groups(u, "dp_shard");
  CHECK(shard.size() == 16);
  CHECK(shard[0] == Ints{0, 8, 16, 24});
  CHECK(shard[1] == Ints{1, 9, 17, 25});
  CHECK(seen(sliced(u, {"dp_shard"}), 29) == "[5,13,21,29]");

  DeviceMesh shard_tp = sliced(u, {"dp_shard", "tp"});
  CHECK(shard_tp.dim_layouts() == dims_of({"4:8", "8:1"}));
  CHECK(shard_tp.coordinate(29) == Ints{3, 5});
  DeviceMesh shard_tp_flat = flat(shard_tp);
  CHECK(shard_tp_flat.layout() == lay("32:1"));
  CHECK(seen(shard_tp_flat, 29) == layout::to_string(layout::IntTensor{{32}, range(0, 32)}));
  DeviceMesh rep_tp = flat(sliced(u, {"dp_rep", "tp"}));
  CHECK(rep_tp.layout() == lay("((2,8)):((32,1))"));
  CHECK(groups(rep_tp).size() == 4);
  Ints expect = range(24, 8);
  for (std::int64_t r : range(56, 8)) expect.push_back(r);
  CHECK(ok(rep_tp.mesh_tensor(29)).values == expect);
}

TEST_CASE("2.9 D: init_device_mesh((4,4,4), (pp,dp,tp)), world 64") {
  DeviceMesh m = make_mesh({4, 4, 4}, {"pp", "dp", "tp"});
  CHECK(m.layout() == lay("(4,4,4):(16,4,1)"));
  for (const char* d : {"pp", "dp", "tp"}) CHECK(groups(m, d).size() == 16);
  CHECK(m.coordinate(37) == Ints{2, 1, 1});
  CHECK(seen(sliced(m, {"pp"}), 37) == "[5,21,37,53]");
  CHECK(seen(sliced(m, {"dp"}), 37) == "[33,37,41,45]");
  CHECK(seen(sliced(m, {"tp"}), 37) == "[36,37,38,39]");
  DeviceMesh pp_tp_slice = sliced(m, {"pp", "tp"});
  CHECK(pp_tp_slice.dim_layouts() == dims_of({"4:16", "4:1"}));
  CHECK(seen(pp_tp_slice, 37) == "[[4,5,6,7],[20,21,22,23],[36,37,38,39],[52,53,54,55]]");
  CHECK(pp_tp_slice.coordinate(37) == Ints{2, 1});
  DeviceMesh pp_tp = flat(pp_tp_slice);
  CHECK(pp_tp.layout() == lay("((4,4)):((16,1))"));
  CHECK(groups(pp_tp).size() == 4);
  CHECK(seen(pp_tp, 37) == "[4,5,6,7,20,21,22,23,36,37,38,39,52,53,54,55]");
  DeviceMesh dp_tp = flat(sliced(m, {"dp", "tp"}));
  CHECK(dp_tp.layout() == lay("16:1"));
  CHECK(ok(dp_tp.mesh_tensor(37)).values == range(32, 16));
  CHECK(sliced(m, {"pp", "dp_tp"}).dim_layouts() == dims_of({"4:16", "16:1"}));
  for (Names bad : {Names{"pp_tp", "dp"}, Names{"dp", "pp_tp"}, Names{"tp", "pp"}}) {
    CHECK(error_of(slice(m, bad)).find("Mesh dim indices should be in ascending order.") !=
          std::string::npos);
  }
  DeviceMesh u = ok(unflatten(m, "dp", Ints{2, 2}, Names{"dp_rep", "dp_shard"}));
  CHECK(u.dim_layouts() == dims_of({"4:16", "2:8", "2:4", "4:1"}));
  CHECK(seen(sliced(u, {"dp_rep"}), 37) == "[37,45]");
  CHECK(seen(sliced(u, {"dp_shard"}), 37) == "[33,37]");
  DeviceMesh split = ok(unflatten(sliced(m, {"pp_tp"}), 0, Ints{2, 8}, Names{"x", "y"}));
  CHECK(split.dim_layouts() == dims_of({"2:32", "(2,4):(16,1)"}));
  CHECK(seen(split, 37) == "[[4,5,6,7,20,21,22,23],[36,37,38,39,52,53,54,55]]");
}

TEST_CASE("2.9 E1: a permuted mesh tensor") {
  DeviceMesh m = ok(DeviceMesh::from_ranks({4, 2}, {0, 4, 1, 5, 2, 6, 3, 7}, {"a", "b"}));
  CHECK(m.layout() == lay("(4,2):(2,1)"));
  CHECK(Ints(m.rank_map().begin(), m.rank_map().end()) == Ints{0, 4, 1, 5, 2, 6, 3, 7});
  CHECK(groups(m, "a") == Rows{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(groups(m, "b") == Rows{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(m.coordinate(5) == Ints{1, 1});
  CHECK(seen(sliced(m, {"a"}), 5) == "[4,5,6,7]");
  CHECK(seen(sliced(m, {"b"}), 5) == "[1,5]");
  DeviceMesh f = flat(m);
  CHECK(f.layout() == lay("8:1"));
  CHECK(groups(f) == Rows{{0, 4, 1, 5, 2, 6, 3, 7}});
  DeviceMesh u = ok(unflatten(m, "a", Ints{2, 2}, Names{"x", "y"}));
  CHECK(u.dim_layouts() == dims_of({"2:4", "2:2", "2:1"}));
  CHECK(groups(u, "x") == Rows{{0, 2}, {4, 6}, {1, 3}, {5, 7}});  // by rank-map index
  CHECK(groups(u, "y") == Rows{{0, 1}, {4, 5}, {2, 3}, {6, 7}});
  CHECK(groups(u, "b") == groups(m, "b"));
  CHECK(seen(u, 5) == "[[[0,4],[1,5]],[[2,6],[3,7]]]");
}

TEST_CASE("2.9 E2: offset ranks [[4,5],[6,7]] in world 8") {
  DeviceMesh m = ok(DeviceMesh::from_ranks({2, 2}, {4, 5, 6, 7}, {"dp", "tp"}));
  CHECK(m.layout() == lay("(2,2):(2,1)"));
  CHECK(groups(m, "dp") == Rows{{4, 6}, {5, 7}});
  CHECK(groups(m, "tp") == Rows{{4, 5}, {6, 7}});
  for (std::int64_t r = 0; r < 4; ++r) {
    CHECK_FALSE(m.coordinate(r).has_value());
    CHECK(seen(m, r) == "[[4,5],[6,7]]");  // one copy: returned even to non-members
  }
  DeviceMesh dp = sliced(m, {"dp"});
  CHECK(
      error_of(dp.mesh_tensor(1))
          .starts_with("In order to get the mesh Tensor of a DeviceMesh it needs to either have "
                       "all its original dimensions (e.g., no slicing) or it needs to contain the "
                       "local rank"));
  CHECK(seen(dp, 6) == "[4,6]");
}

TEST_CASE("2.9 E3 and E4: arbitrary values and a shuffled 1-D root") {
  DeviceMesh e3 = ok(DeviceMesh::from_ranks({2, 2}, {10, 20, 30, 40}, {"r", "c"}));
  CHECK(groups(e3, "r") == Rows{{10, 30}, {20, 40}});
  CHECK(groups(e3, "c") == Rows{{10, 20}, {30, 40}});

  DeviceMesh w = ok(DeviceMesh::from_ranks({8}, {3, 1, 4, 0, 2, 5, 7, 6}, {"w"}));
  DeviceMesh u = ok(unflatten(w, 0, Ints{2, 2, 2}, Names{"a", "b", "c"}));
  CHECK(groups(u, "a") == Rows{{3, 2}, {1, 5}, {4, 7}, {0, 6}});
  CHECK(groups(u, "b") == Rows{{3, 4}, {1, 0}, {2, 7}, {5, 6}});
  CHECK(groups(u, "c") == Rows{{3, 1}, {4, 0}, {2, 5}, {7, 6}});
  CHECK(seen(u, 0) == "[[[3,1],[4,0]],[[2,5],[7,6]]]");
  DeviceMesh ac = sliced(u, {"a", "c"});
  CHECK(seen(ac, 4) == "[[4,0],[7,6]]");
  CHECK(seen(flat(ac), 4) == "[4,0,7,6]");
}

}  // namespace
}  // namespace dtplan::mesh
