#include "placement/tensor_spec.h"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "support/placement_specs.h"

namespace dtplan::placement {
namespace {

using core::DType;
using Sizes = std::vector<std::int64_t>;
using testing::spec_of;

core::Error spec_error(Sizes shape, const std::string& text, const Sizes& mesh) {
  auto spec = TensorSpec::make(std::move(shape), DType::kF32,
                               parse_placement_list(text, "spec").value(), mesh);
  REQUIRE_FALSE(spec.ok());
  return spec.error();
}

TEST_CASE("make resolves negative dims and fills in the default order") {
  TensorSpec spec = spec_of({12, 3}, "S(-1),R", {4, 2});
  CHECK(spec.placement(0) == Placement::shard(1));
  CHECK(spec == spec_of({12, 3}, "S(1),R", {4, 2}));
  CHECK(spec.shard_order().mesh_dims_of(1) == std::vector<std::int32_t>{0});
  CHECK(spec.numel() == 36);
  CHECK(spec.global_bytes() == 144);
  CHECK(spec.tensor_rank() == 2);
  CHECK(spec.mesh_ndim() == 2);
  // An explicit default order equals no order.
  TensorSpec explicit_default = spec_of({16}, "S(0)[0],S(0)[1]", {2, 2});
  CHECK(explicit_default == spec_of({16}, "S(0),S(0)", {2, 2}));
  CHECK(explicit_default != spec_of({16}, "S(0)[1],S(0)[0]", {2, 2}));
  CHECK(spec_of({16}, "S(-1)[1],S(0)[0]", {2, 2}).shard_order().mesh_dims_of(0) ==
        std::vector<std::int32_t>{1, 0});
}

TEST_CASE("validation errors name what is wrong") {
  CHECK(spec_error({16}, "S(1)", {4}).message ==
        "mesh dim 0 (S(1)): tensor dim 1 is out of range for shape [16] (rank 1)");
  CHECK(spec_error({16}, "S(-2)", {4}).message.find("out of range") != std::string::npos);
  CHECK(spec_error({16}, "S(0),R", {4}).message ==
        "placements S(0),R: 2 placement(s) for a mesh [4] with 1 dim(s); give one per mesh dim");
  CHECK(spec_error({16}, "R", {0}).message ==
        "mesh [0]: mesh dim 0 has size 0; sizes must be at least 1");
  CHECK(spec_error({-1}, "R", {2}).message == "shape [-1]: tensor dim 0 has negative size -1");
  CHECK(spec_error({std::int64_t{1} << 40, std::int64_t{1} << 30}, "R", {2})
            .message.find("overflows") != std::string::npos);
  CHECK(spec_error({std::int64_t{1} << 62}, "R", {2}).message.find("bytes") != std::string::npos);
  CHECK(spec_error({16}, "R", {std::int64_t{1} << 40, std::int64_t{1} << 40})
            .message.find("rank count") != std::string::npos);
  CHECK(spec_error({16}, "S(0)[1],S(0)", {2, 2}).message.find("give all or none") !=
        std::string::npos);
  Sizes many(kMaxMeshDims + 1, 1);
  std::string rs = "R";
  for (std::size_t i = 1; i < many.size(); ++i) rs += ",R";
  CHECK(spec_error({4}, rs, many).message.find("1 to 16 dims") != std::string::npos);
  // A scalar can be replicated or partial, not sharded.
  CHECK(TensorSpec::make({}, DType::kF32, {Placement::partial()}, Sizes{2}).ok());
  CHECK_FALSE(TensorSpec::make({}, DType::kF32, {Placement::shard(0)}, Sizes{2}).ok());
  // A hand-built list needs one suffix slot per placement.
  PlacementList short_list{{Placement::shard(0), Placement::shard(0)}, {-1}};
  CHECK(TensorSpec::make({8}, DType::kF32, short_list, Sizes{2, 2}).error().kind ==
        core::ErrorKind::kInternal);
  // An explicit order must fit the placements.
  auto bad_order = TensorSpec::make({8}, DType::kF32, {Placement::shard(0), Placement::replicate()},
                                    Sizes{2, 2}, ShardOrder::from_steps({{0, 1}}).value());
  CHECK(bad_order.error().message.find("mesh dim 1 (R) does not shard tensor dim 0") !=
        std::string::npos);
}

TEST_CASE("mixed partials: only sum and avg may meet in one spec") {
  CHECK(spec_of({8}, "P(sum),P(avg)", {2, 2}).partial_ops() ==
        std::vector<ReduceOp>{ReduceOp::kSum, ReduceOp::kAvg});
  CHECK(spec_of({8}, "P(max),R,P(max)", {2, 2, 2}).partial_ops() ==
        std::vector<ReduceOp>{ReduceOp::kMax});
  core::Error e = spec_error({8}, "P(sum),R,P(max)", {2, 2, 2});
  CHECK(e.kind == core::ErrorKind::kUnsupported);
  CHECK(e.message ==
        "mesh dim 0 (P(sum)) and mesh dim 2 (P(max)): Partial reduce ops cannot mix "
        "in one placement list (only sum and avg commute)");
  CHECK(spec_error({8}, "P(min),P(max)", {2, 2}).kind == core::ErrorKind::kUnsupported);
  CHECK(spec_error({8}, "P(avg),P(min)", {2, 2}).kind == core::ErrorKind::kUnsupported);
}

TEST_CASE("summary predicates and printing") {
  TensorSpec spec = spec_of({16, 16}, "S(0)[1],S(0)[0],_S(1,2)", {2, 2, 2}, DType::kBF16);
  CHECK(format_placement_list(spec) == "S(0)[1],S(0)[0],_S(1,2)");
  CHECK(format_trace_state(spec) == "S(0)[1]S(0)[0]_S(1,2)");
  CHECK(to_string(spec) == "bf16[16,16] S(0)[1],S(0)[0],_S(1,2)");
  CHECK(spec.has_strided_shard());
  CHECK_FALSE(spec.has_partial());
  CHECK_FALSE(spec.is_replicated());
  CHECK(spec_of({4}, "R,R", {2, 2}).is_replicated());
  CHECK(format_trace_state(spec_of({4}, "R,R", {2, 2})) == "RR");
  CHECK(format_trace_state(spec_of({8, 8}, "S(0),S(0)", {2, 2})) == "S(0)[0]S(0)[1]");
}

TEST_CASE("mesh argument checks") {
  TensorSpec spec = spec_of({8}, "S(0),R", {2, 4});
  CHECK(check_mesh_args(spec, Sizes{2, 4}, Sizes{1, 3}).ok());
  CHECK(check_mesh_args(spec, Sizes{2, 4}, Sizes{2, 0}).error().message ==
        "coordinate [2,0] is not a coordinate of mesh [2,4]");
  CHECK_FALSE(check_mesh_args(spec, Sizes{2, 4}, Sizes{0}).ok());
  CHECK(check_mesh_args(spec, Sizes{2, 4}, Sizes{}).error().message ==
        "coordinate [] is not a coordinate of mesh [2,4]");
  CHECK(check_mesh_args(spec, Sizes{8}).error().message ==
        "mesh [8] has 1 dim(s) but the spec f32[8] S(0),R has 2 placement(s)");
  CHECK_FALSE(check_mesh_args(spec, Sizes{2, -4}).ok());
}

TEST_CASE("random specs: parse(print(spec)) rebuilds the spec; equal specs hash equal") {
  std::mt19937_64 rng(0x5eed0003);
  std::unordered_map<TensorSpec, int> cache;
  std::map<TensorSpec, int> ordered;
  for (int iter = 0; iter < 1000; ++iter) {
    testing::MeshAndSpec r = testing::random_spec(rng);
    const std::string text = format_placement_list(r.spec);
    auto list = parse_placement_list(text, "x");
    REQUIRE(list.ok());
    auto rebuilt = TensorSpec::make(r.spec.shape(), r.spec.dtype(), *list, r.mesh_sizes);
    REQUIRE_MESSAGE(rebuilt.ok(), text);
    CHECK_MESSAGE(*rebuilt == r.spec, text);
    CHECK(hash_value(*rebuilt) == hash_value(r.spec));
    // The trace form is the same items without separators.
    PlacementList items = to_placement_list(r.spec.placements(), r.spec.shard_order());
    std::string trace;
    for (std::size_t m = 0; m < items.placements.size(); ++m) {
      trace += to_string(items.placements[m]);
      if (items.order_positions[m] >= 0) {
        trace += "[" + std::to_string(items.order_positions[m]) + "]";
      }
    }
    CHECK(format_trace_state(r.spec) == trace);
    cache[r.spec] += 1;
    ordered[r.spec] += 1;
  }
  CHECK(cache.size() == ordered.size());
}

}  // namespace
}  // namespace dtplan::placement
