#include "sim/collective_call.h"

#include <doctest/doctest.h>

#include <string>

namespace dtplan::sim {
namespace {

using collective::Collective;

std::string error_of(const CollectiveCall& call, std::int64_t world) {
  core::Status s = validate_call(call, world);
  return s.ok() ? "" : s.error().message;
}

TEST_CASE("collective call: descriptions") {
  CHECK(describe(CollectiveCall{Collective::kAllReduce, {{0, 1}, {2, 3}}, ReduceOp::kAvg}) ==
        "all_reduce(avg) on [[0,1],[2,3]]");
  CHECK(describe(CollectiveCall{Collective::kBroadcast, {{4, 5}}, ReduceOp::kSum, 1}) ==
        "broadcast(root 1) on [[4,5]]");
  CHECK(describe(CollectiveCall{Collective::kAllGather, {{0, 1, 4, 5}}}) ==
        "all_gather on [[0,1,4,5]]");
}

TEST_CASE("collective call: validation names the call and the rank") {
  CHECK(error_of({Collective::kAllGather, {{0, 1, 4, 5}, {2, 3, 6, 7}}}, 8).empty());
  CHECK(error_of({Collective::kAllGather, {{0, 1}, {1, 2}}}, 8) ==
        "all_gather on [[0,1],[1,2]]: rank 1 appears in group [0,1] and again in group [1,2]");
  CHECK(error_of({Collective::kAllGather, {{0, 8}}}, 8) ==
        "all_gather on [[0,8]]: rank 8 of group [0,8] is outside the world of 8 ranks");
  CHECK(error_of({Collective::kAllGather, {{-1}}}, 8) ==
        "all_gather on [[-1]]: rank -1 of group [-1] is outside the world of 8 ranks");
  CHECK(error_of({Collective::kAllGather, {}}, 8) == "all_gather on []: no groups");
  CHECK(error_of({Collective::kAllGather, {{0}, {}}}, 8) ==
        "all_gather on [[0],[]]: group 1 is empty");
  CHECK(error_of({Collective::kBroadcast, {{0, 1}}, ReduceOp::kSum, 2}, 8) ==
        "broadcast(root 2) on [[0,1]]: root 2 is not a group rank of [0,1]");
  core::Status s = validate_call({Collective::kSendRecv, {{0, 1}}}, 8);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == core::ErrorKind::kUnsupported);
}

TEST_CASE("collective call: output shapes") {
  CHECK(output_shape(Collective::kAllGather, 4, {3, 2}, "r").value() == Shape{12, 2});
  CHECK(output_shape(Collective::kReduceScatter, 4, {12, 2}, "r").value() == Shape{3, 2});
  CHECK(output_shape(Collective::kAllToAll, 4, {12, 2}, "r").value() == Shape{12, 2});
  CHECK(output_shape(Collective::kAllReduce, 4, {}, "r").value() == Shape{});
  CHECK(output_shape(Collective::kBroadcast, 4, {5}, "r").value() == Shape{5});
  auto uneven = output_shape(Collective::kReduceScatter, 4, {10}, "rank 3");
  REQUIRE_FALSE(uneven.ok());
  CHECK(uneven.error().message ==
        "rank 3: reduce_scatter over 4 ranks needs dim 0 divisible by 4, got shape [10]");
  CHECK_FALSE(output_shape(Collective::kAllGather, 4, {}, "r").ok());
  CHECK_FALSE(output_shape(Collective::kAllGather, 4, {INT64_MAX / 2}, "r").ok());
}

}  // namespace
}  // namespace dtplan::sim
