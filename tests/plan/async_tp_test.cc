// plan/async_tp.h: when async TP cannot apply to a plan's mesh and hardware. The fused matmuls
// it finds in a torchtitan plan, and their prices, are checked end to end by
// tests/cli/async_tp_cli_test.cc.

#include "plan/async_tp.h"

#include <doctest/doctest.h>

#include <string>

#include "cost/hardware.h"
#include "plan/plan.h"

namespace dtplan::plan {
namespace {

cost::HardwareProfile nvlink() {
  cost::HardwareProfile p;
  p.name = "nvl";
  p.node.intra_fabric = cost::IntraFabric::kNvSwitch;
  p.node.nvlink_links_per_gpu = 18;
  p.node.nvlink_link_gbyte_per_s = 20.6;
  return p;
}

// A plan with no ops on a 2-rank mesh dim named `name`, `gpus_per_node` GPUs per node.
Plan two_ranks(const std::string& name, std::int64_t gpus_per_node) {
  Plan plan;
  plan.mesh.shape = {2};
  plan.mesh.names = {name};
  plan.mesh.ranks = {0, 1};
  plan.mesh.layouts = {"2:1"};
  plan.mesh.gpus_per_node = gpus_per_node;
  return plan;
}

TEST_CASE("async tp: a mesh without a tp dim of size > 1 is bad input naming the request") {
  const auto r = find_fused_matmuls(two_ranks("dp_shard", 8), nvlink(), "--async-tp");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.rfind("--async-tp: needs a mesh dim named tp of size > 1", 0) == 0);
}

TEST_CASE("async tp: no NVLink, or tp peers on two nodes, is unsupported") {
  cost::HardwareProfile pcie = nvlink();
  pcie.node.intra_fabric = cost::IntraFabric::kPcie;
  const auto no_nvlink = find_fused_matmuls(two_ranks("tp", 8), pcie, "--async-tp");
  REQUIRE_FALSE(no_nvlink.ok());
  CHECK(no_nvlink.error().kind == core::ErrorKind::kUnsupported);
  CHECK(no_nvlink.error().message.find("has no NVLink") != std::string::npos);
  const auto spans = find_fused_matmuls(two_ranks("tp", 1), nvlink(), "--async-tp");
  REQUIRE_FALSE(spans.ok());
  CHECK(spans.error().kind == core::ErrorKind::kUnsupported);
  CHECK(spans.error().message.find("the tp groups span nodes (1 GPUs per node)") !=
        std::string::npos);
  // On one node there is nothing to fuse in a plan without ops.
  Plan plan = two_ranks("tp", 8);
  REQUIRE(apply_async_tp(plan, nvlink(), "--async-tp").ok());
  CHECK(plan.training.async_tp == core::AsyncTp::kOn);
  CHECK(plan.fused_matmuls.empty());
}

}  // namespace
}  // namespace dtplan::plan
