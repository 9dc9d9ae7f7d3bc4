// Every error rule of docs/reference/device_mesh.md §3 that applies to a planner: PyTorch's message
// (its key substring), the offending input named, and the error kind (exit code).

#include <doctest/doctest.h>

#include "mesh/device_mesh.h"
#include "mesh/mesh_ops.h"
#include "support/layout_gen.h"
#include "support/mesh_gen.h"

namespace dtplan::mesh {
namespace {

using core::ErrorKind;
using testing::flat;
using testing::Ints;
using testing::lay;
using testing::make_mesh;
using testing::Names;
using testing::ok;
using testing::range;
using testing::sliced;

// The error of `r`, which must fail with `kind`.
template <class T>
std::string failure(const core::Result<T>& r, ErrorKind kind = ErrorKind::kBadInput) {
  REQUIRE_MESSAGE(!r.ok(), "expected an error");
  CHECK(r.error().kind == kind);
  return r.error().message;
}

bool has(const std::string& message, const std::string& part) {
  INFO(message);
  return message.find(part) != std::string::npos;
}

TEST_CASE("3.1 construction: names, lengths and shapes") {
  std::string dup = failure(DeviceMesh::create({2, 2}, {"dp", "dp"}));
  CHECK(has(dup, "Each mesh_dim_name must be unique."));
  CHECK(has(dup, "'dp'"));
  CHECK(failure(DeviceMesh::create({2, 2}, {"dp"})) ==
        "mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): 1 and "
        "len(mesh_shape):2. (mesh_dim_names ('dp',))");
  // Uniqueness is checked first, as in PyTorch.
  CHECK(has(failure(DeviceMesh::create({2, 2, 2}, {"a", "a"})), "must be unique"));
  CHECK(has(failure(DeviceMesh::create({}, {})), "at least one dim"));
  CHECK(has(failure(DeviceMesh::create({2, 0}, {"dp", "tp"})), "dim 1 has size 0"));
  CHECK(has(failure(DeviceMesh::create({-2}, {})), "size -2"));
  CHECK(has(failure(DeviceMesh::create({1 << 12, 1 << 12}, {}), ErrorKind::kUnsupported),
            "(4096, 4096) has more than the supported maximum"));
  CHECK(has(failure(DeviceMesh::create({1LL << 40, 1LL << 40}, {}), ErrorKind::kUnsupported),
            "supported maximum"));
  CHECK(has(failure(DeviceMesh::create(Ints(65, 1), {}), ErrorKind::kUnsupported), "at most 64"));
}

TEST_CASE("3.1 construction: rank maps") {
  CHECK(failure(DeviceMesh::from_ranks({2, 4}, range(0, 6), {})) ==
        "The rank map contains 6 element, which isn't large enough for layout (2,4):(4,1)");
  CHECK(has(failure(DeviceMesh::from_ranks({2, 2}, range(0, 5), {})),
            "5 ranks given for mesh_shape (2, 2) of 4 positions"));
  std::string twice = failure(DeviceMesh::from_ranks({2, 2}, {0, 1, 1, 3}, {}));
  CHECK(has(twice, "rank 1 appears at positions 1 and 2"));
  CHECK(has(twice, "rank_coords.size(0) must be 0 or 1, got 2"));
  CHECK(has(failure(DeviceMesh::from_ranks({4}, {5, 5, 5, 0}, {})), "got 3"));
  CHECK(
      has(failure(DeviceMesh::from_ranks({2}, {0, -1}, {})), "rank -1 at position 1 is negative"));
  CHECK(failure(DeviceMesh::from_layout(range(0, 4), {lay("4:2")}, {})) ==
        "The rank map contains 4 element, which isn't large enough for layout 4:2");
  CHECK(has(failure(DeviceMesh::from_layout(range(0, 6), {lay("4:1")}, {})),
            "does not tile the rank map of 6 elements"));
  CHECK(has(failure(DeviceMesh::from_layout(range(0, 4), {}, {})), "a mesh needs 1 to 64 dims"));
}

TEST_CASE("3.1 construction: overlapping layouts (G2 orthogonality)") {
  std::string overlap = failure(DeviceMesh::from_layout(range(0, 8), {lay("2:2"), lay("2:2")}, {}));
  CHECK(has(overlap, "Please use a non-overlapping layout when creating a DeviceMesh."));
  CHECK(has(overlap, "(2,2):(2,2)"));
  // Injective (values 0,3,2,5,4,7) but not stackable: G1 accepts it, yet it has no complement
  // and therefore no process groups, so it is rejected.
  CHECK(has(failure(DeviceMesh::from_layout(range(0, 8), {lay("3:2"), lay("2:3")}, {})),
            "non-overlapping"));
  CHECK(has(failure(DeviceMesh::from_layout(range(0, 8), {lay("4:0")}, {})), "non-overlapping"));
}

TEST_CASE("3.2 dims, local ranks and the mesh tensor") {
  DeviceMesh m = make_mesh({2, 4}, {"dp", "tp"});
  CHECK(failure(m.dim("pp")) ==
        "Mesh dimension 'pp' does not exist. Available mesh dimensions are: "
        "mesh_dim_names=('dp', 'tp')");
  CHECK(failure(make_mesh({2, 4}, {}).dim("dp")) ==
        "No `mesh_dim_names` found. (looking up 'dp' in DeviceMesh((2, 4), stride=(4, 1)))");
  CHECK(has(failure(m.dim(2)), "mesh dim 2 is out of range for a mesh with 2 dimensions"));
  CHECK(has(failure(m.dim(-3)), "in range [-2, 1]"));
  CHECK(ok(m.dim(-1)) == MeshDim{1});
  CHECK(failure(m.local_rank(3, std::nullopt)) ==
        "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1. (rank 3 of "
        "DeviceMesh((dp=2, tp=4), stride=(4, 1)))");
  CHECK(has(failure(m.local_rank(9, MeshDim{0})), "rank 9 is not in DeviceMesh((dp=2, tp=4)"));
  CHECK(has(failure(sliced(m, {"tp"}).mesh_tensor(8)), "it needs to contain the local rank"));
}

TEST_CASE("3.2 slicing") {
  DeviceMesh m = make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  CHECK(failure(slice(make_mesh({2, 2}, {}), Names{"dim_0"})) ==
        "Cannot slice a DeviceMesh without mesh_dim_names! (slicing DeviceMesh((2, 2), stride=(2, "
        "1)) by ('dim_0',))");
  CHECK(failure(slice(m, Names{"pp"})) ==
        "Invalid mesh_dim_names ('pp',) specified. Valid mesh_dim_names are ['dp', 'cp', 'tp'].");
  DeviceMesh dp_cp = flat(sliced(m, {"dp", "cp"}));
  CHECK(failure(slice(m, Names{"pp"})) ==
        "Invalid mesh_dim_names ('pp',) specified. Valid mesh_dim_names are ['dp', 'cp', 'tp', "
        "'dp_cp'].");
  // A flattened name is visible from the root only.
  CHECK(has(failure(slice(sliced(m, {"dp", "cp"}), Names{"dp_cp"})), "Valid mesh_dim_names are"));
  // A name made by unflatten is not visible from the root.
  DeviceMesh u = ok(unflatten(m, "tp", Ints{2, 1}, Names{"t0", "t1"}));
  CHECK(sliced(u, {"t0"}).layout() == lay("2:1"));
  CHECK(has(failure(slice(m, Names{"t0"})), "Invalid mesh_dim_names ('t0',) specified."));
  CHECK(failure(slice(m, Names{"tp", "dp"})) ==
        "Invalid mesh_dim_names ('tp', 'dp') specified. Mesh dim indices should be in ascending "
        "order.");
  CHECK(has(failure(slice(m, Names{})), "Invalid mesh_dim_names () specified."));
  CHECK(failure(slice(m, Names{"dp_cp", "cp"})) ==
        "Slicing overlapping dim_names ('dp_cp', 'cp') is not allowed.");
  CHECK(failure(slice(m, Names{"dp", "dp"})) ==
        "Slicing overlapping dim_names ('dp', 'dp') is not allowed.");
  // Interleaving a flattened dim with another dim is a transposition.
  flat(sliced(m, {"dp", "tp"}));
  CHECK(has(failure(slice(m, Names{"dp_tp", "cp"})), "ascending order"));
}

TEST_CASE("3.3 flatten") {
  DeviceMesh m = make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  CHECK(failure(flatten(make_mesh({2, 2}, {}))) ==
        "Cannot flatten a DeviceMesh without mesh_dim_names! (DeviceMesh((2, 2), stride=(2, 1)))");
  CHECK(
      failure(flatten(sliced(m, {"cp", "tp"}), std::string("dp"))) ==
      "dp already exists for submesh of the DeviceMesh((dp=2, cp=2, tp=2), stride=(4, 2, 1)). The "
      "mesh_dim_names of submesh and flattened mesh are ('dp', 'cp', 'tp'). Please specify "
      "another valid mesh_dim_name.");
  flat(sliced(m, {"dp", "cp"}), "x");
  std::string again = failure(flatten(sliced(m, {"cp", "tp"}), std::string("x")));
  CHECK(again.starts_with(
      "Flatten mesh with mesh_dim_name x has been created before, Please specify another valid "
      "mesh_dim_name."));
  CHECK(has(again, "It flattens 4:2, not 4:1"));
  CHECK(has(failure(flatten(m, std::string(""))), "must not be empty"));
}

TEST_CASE("3.3 unflatten") {
  DeviceMesh m = make_mesh({2, 4}, {"dp", "tp"});
  CHECK(failure(unflatten(m, 2, Ints{2, 2}, Names{"a", "b"})) ==
        "dim 2 specified in `_unflatten` is out of range 2");
  CHECK(failure(unflatten(m, -1, Ints{2, 2}, Names{"a", "b"})) ==
        "dim -1 specified in `_unflatten` is out of range 2");
  // G2's check (G1 had it inverted and rejected names that exist).
  CHECK(failure(unflatten(m, "pp", Ints{2, 2}, Names{"a", "b"})) ==
        "dim pp specified in `_unflatten` is not in ('dp', 'tp')");
  CHECK(has(failure(unflatten(m, "tp", Ints{2, 2}, Names{"a"})),
            "mesh_dim_names must have same length as mesh_sizes in _unflatten!"));
  CHECK(failure(unflatten(m, "tp", Ints{2, 3}, Names{"a", "b"})) ==
        "The product of mesh_sizes=(2, 3) is 6, but the original dimension at dim=1 has size 4. "
        "These must be equal for unflatten to work correctly.");
  CHECK(has(failure(unflatten(m, "tp", Ints{4, 0}, Names{"a", "b"})), "mesh_sizes=(4, 0)"));
  CHECK(has(failure(unflatten(m, "tp", Ints{}, Names{})), "at least one size"));
  // Beyond PyTorch, which lets the clash through and yields duplicate names.
  std::string clash = failure(unflatten(m, "tp", Ints{2, 2}, Names{"dp", "b"}));
  CHECK(has(clash, "Each mesh_dim_name must be unique. Found repeated mesh_dim_name 'dp'"));
  CHECK(has(failure(unflatten(make_mesh({4}, {}), 0, Ints{2, 2}, Names{"a", "b"})),
            "Cannot unflatten a DeviceMesh without mesh_dim_names!"));
  // (3,2):(4,1) has no 3-element run to split off: well-formed but impossible.
  DeviceMesh odd =
      ok(DeviceMesh::from_layout(range(0, 12), {lay("(3,2):(4,1)"), lay("2:2")}, {"x", "y"}));
  std::string split =
      failure(unflatten(odd, "x", Ints{2, 3}, Names{"a", "b"}), ErrorKind::kUnsupported);
  CHECK(has(split, "cannot unflatten dim 'x' (layout (3,2):(4,1)) into mesh_sizes=(2, 3)"));
  CHECK(has(split, "divisibility"));
}

TEST_CASE("3.3 submeshes and concatenation") {
  DeviceMesh m = make_mesh({2, 2, 2}, {"dp", "cp", "tp"});
  CHECK(has(failure(all_submeshes(m, "pp")), "Mesh dimension 'pp' does not exist."));
  DeviceMesh other = make_mesh({2, 2}, {"dp", "tp"});
  std::vector<DeviceMesh> mixed = {sliced(m, {"dp"}), sliced(other, {"tp"})};
  CHECK(has(failure(concatenate(mixed)),
            "Cannot concatenate DeviceMeshes derived from different device meshs"));
  std::vector<DeviceMesh> overlap = {sliced(m, {"dp", "cp"}), sliced(m, {"cp"})};
  std::string o = failure(concatenate(overlap));
  CHECK(has(o, "Cannot concatenate overlapping meshes: DeviceMesh((dp=2, cp=2)"));
  std::vector<DeviceMesh> none;
  CHECK(has(failure(concatenate(none)), "empty"));
  std::vector<DeviceMesh> with_flat = {sliced(m, {"dp"}), flat(sliced(m, {"cp", "tp"}))};
  CHECK(ok(concatenate(with_flat)).names() == Names{"dp", "cp_tp"});
  std::vector<DeviceMesh> half_named = {make_mesh({2, 2}, {"a", "b"}), make_mesh({2, 2}, {})};
  CHECK(has(failure(concatenate(half_named)), "with and without mesh_dim_names"));
  DeviceMesh u1 = ok(unflatten(m, "tp", Ints{2, 1}, Names{"x", "y"}));
  DeviceMesh u2 = ok(unflatten(m, "cp", Ints{2, 1}, Names{"x", "z"}));
  std::vector<DeviceMesh> same_name = {sliced(u1, {"x"}), sliced(u2, {"x"})};
  CHECK(has(failure(concatenate(same_name)), "Found repeated mesh_dim_name 'x'"));
}

}  // namespace
}  // namespace dtplan::mesh
