// plan_compare on hand-made plans: ratios against the first plan, collectives summed by kind and
// by named mesh dims, and the parameter families whose placements are not alike by dim name.

#include "plan/plan_compare.h"

#include <doctest/doctest.h>

#include "placement/placement_text.h"

namespace dtplan::plan {

namespace {

using collective::Collective;

PlanOp parameter(const std::string& name, const std::string& placements) {
  PlanOp op;
  op.name = name;
  op.role = core::OpRole::kParam;
  op.placements = placement::parse_placement_list(placements, "test").value().placements;
  return op;
}

CollectiveSummary collective(Collective kind, std::vector<std::int32_t> dims, std::int64_t count,
                             std::int64_t bytes) {
  CollectiveSummary c;
  c.kind = kind;
  c.mesh_dims = std::move(dims);
  c.count = count;
  c.bytes = bytes;
  return c;
}

// FSDP over 4 ranks on dp_shard: every parameter S(0), two layers.
ComparedPlan fsdp() {
  ComparedPlan p;
  p.label = "fsdp.json";
  p.plan.model = "m";
  p.plan.mesh.shape = {4};
  p.plan.mesh.names = {"dp_shard"};
  for (const char* name : {"layers.0.wq.weight", "layers.0.norm.weight", "layers.1.wq.weight",
                           "layers.1.norm.weight", "norm.weight"}) {
    p.plan.ops.push_back(parameter(name, "S(0)"));
  }
  p.plan.collectives = {collective(Collective::kAllGather, {0}, 10, 1000),
                        collective(Collective::kReduceScatter, {0}, 5, 600)};
  p.plan.memory.peak_bytes_per_rank = 4000;
  p.step.step_time_us = 200;
  return p;
}

// FSDP x TP on dp_shard,tp: the wq weights also sharded on tp, norms replicated there (alike
// FSDP's by dim name); layer 1's wq differs from layer 0's.
ComparedPlan fsdp_tp() {
  ComparedPlan p;
  p.label = "fsdp_tp.json";
  p.plan.model = "m";
  p.plan.mesh.shape = {2, 2};
  p.plan.mesh.names = {"dp_shard", "tp"};
  p.plan.ops = {parameter("layers.0.wq.weight", "S(0),S(1)"),
                parameter("layers.0.norm.weight", "S(0),R"),
                parameter("layers.1.wq.weight", "S(0),S(0)"),
                parameter("layers.1.norm.weight", "S(0),R"), parameter("norm.weight", "S(0),R")};
  p.plan.collectives = {collective(Collective::kAllGather, {0}, 4, 300),
                        collective(Collective::kAllGather, {1}, 2, 50),
                        collective(Collective::kAllGather, {0, 1}, 1, 7),
                        collective(Collective::kAllReduce, {1}, 3, 90)};
  p.plan.memory.peak_bytes_per_rank = 3000;
  p.step.step_time_us = 150;
  return p;
}

}  // namespace

TEST_CASE("plan compare: fewer than two plans is bad input") {
  std::vector<ComparedPlan> one = {fsdp()};
  auto c = compare_plans(one);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().kind == core::ErrorKind::kBadInput);
  CHECK(c.error().message.find("two or more") != std::string::npos);
}

TEST_CASE("plan compare: ratios against the first plan") {
  std::vector<ComparedPlan> plans = {fsdp(), fsdp_tp()};
  const PlanComparison c = compare_plans(plans).value();
  REQUIRE(c.step_time_ratio.size() == 2);
  CHECK(*c.step_time_ratio[0] == 1.0);
  CHECK(*c.step_time_ratio[1] == doctest::Approx(0.75));
  CHECK(*c.peak_memory_ratio[1] == doctest::Approx(0.75));
  plans[0].step.step_time_us = 0;
  CHECK_FALSE(compare_plans(plans).value().step_time_ratio[1].has_value());
}

TEST_CASE("plan compare: collectives by kind and by mesh dim name") {
  std::vector<ComparedPlan> plans = {fsdp(), fsdp_tp()};
  const PlanComparison c = compare_plans(plans).value();
  // Kinds in Collective order, only those some plan has; zero where a plan has none.
  REQUIRE(c.by_kind.size() == 3);
  CHECK(c.by_kind[0] ==
        CollectiveKindRow{Collective::kAllGather, {{10, 1000}, {4 + 2 + 1, 300 + 50 + 7}}});
  CHECK(c.by_kind[1] == CollectiveKindRow{Collective::kReduceScatter, {{5, 600}, {0, 0}}});
  CHECK(c.by_kind[2] == CollectiveKindRow{Collective::kAllReduce, {{0, 0}, {3, 90}}});
  // Dim-name lists ascending; dp_shard lines up although the meshes differ.
  REQUIRE(c.by_mesh_dims.size() == 3);
  CHECK(c.by_mesh_dims[0] == CollectiveDimsRow{{"dp_shard"}, {{15, 1600}, {4, 300}}});
  CHECK(c.by_mesh_dims[1] == CollectiveDimsRow{{"dp_shard", "tp"}, {{0, 0}, {1, 7}}});
  CHECK(c.by_mesh_dims[2] == CollectiveDimsRow{{"tp"}, {{0, 0}, {2 + 3, 50 + 90}}});
}

TEST_CASE("plan compare: differing parameter families, alike layers collapsed") {
  std::vector<ComparedPlan> plans = {fsdp(), fsdp_tp()};
  const ParameterComparison p = compare_plans(plans).value().parameters;
  CHECK(p.models == ModelMatch::kSame);
  CHECK(p.compared == 3);
  CHECK(p.unmatched == 0);
  // The norms (S(0) on dp_shard in both) are alike; wq is not, its layers listed as distinct.
  REQUIRE(p.differing.size() == 1);
  CHECK(p.differing[0] ==
        ParameterDifference{"layers.*.wq.weight", {"S(0)", "S(0),S(1) | S(0),S(0)"}});
  // A plan compared with itself differs nowhere.
  std::vector<ComparedPlan> same = {fsdp_tp(), fsdp_tp()};
  CHECK(compare_plans(same).value().parameters.differing.empty());
}

TEST_CASE("plan compare: plans of different models compare the families both have") {
  ComparedPlan other = fsdp_tp();
  other.plan.model = "other";
  other.plan.ops.push_back(parameter("output.weight", "S(1),S(0)"));
  other.plan.ops.erase(other.plan.ops.begin() + 4);  // no norm.weight
  std::vector<ComparedPlan> plans = {fsdp(), other};
  const ParameterComparison p = compare_plans(plans).value().parameters;
  CHECK(p.models == ModelMatch::kDiffer);
  CHECK(model_match_name(p.models) == "differ");
  CHECK(p.compared == 2);   // layers.*.wq.weight, layers.*.norm.weight
  CHECK(p.unmatched == 2);  // norm.weight, output.weight
  REQUIRE(p.differing.size() == 1);
  CHECK(p.differing[0].family == "layers.*.wq.weight");
}

}  // namespace dtplan::plan
