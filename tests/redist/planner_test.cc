// Planner: planner selection (DTensor's rule), caching, request errors, comm counts and traces of
// the reference's cases, and the price of Replicate -> Partial.

#include "redist/planner.h"

#include <doctest/doctest.h>

#include "core/units.h"
#include "support/placement_specs.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using testing::make_planner;
using testing::mesh_context;
using testing::spec_of;
using Ints = std::vector<std::int64_t>;

std::shared_ptr<const RedistPlan> plan(Planner& p, const Ints& shape, const std::string& src,
                                       const std::string& dst, PlanOptions o = {}) {
  const std::vector<std::int64_t> mesh(p.mesh().sizes().begin(), p.mesh().sizes().end());
  auto r = p.plan(spec_of(shape, src, mesh), spec_of(shape, dst, mesh), o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  return *r;
}

core::Error failure(Planner& p, const Ints& shape, const std::string& src, const std::string& dst,
                    PlanOptions o = {}) {
  const std::vector<std::int64_t> mesh(p.mesh().sizes().begin(), p.mesh().sizes().end());
  auto r = p.plan(spec_of(shape, src, mesh), spec_of(shape, dst, mesh), o);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

TEST_CASE("planner: comm counts of the 6.1 cases") {
  auto one = make_planner(mesh_context({4}, {}), CostModelKind::kNccl);
  for (const Ints& shape : {Ints{12, 3}, Ints{13, 3}, Ints{14, 3}}) {
    CHECK(plan(*one, shape, "S(0)", "R")->comm_counts == CommCounts{1, 0, 0, 0});
    CHECK(plan(*one, shape, "P(sum)", "S(0)")->comm_counts == CommCounts{0, 0, 1, 0});
    CHECK(plan(*one, shape, "R", "S(0)")->comm_counts.total() == 0);
  }
  CHECK(plan(*one, {12, 3}, "R", "R")->steps.empty());
  CHECK(plan(*one, {12, 3}, "P(sum)", "P(sum)")->steps.empty());
  CHECK(plan(*one, {12, 3}, "P(sum)", "R")->comm_counts == CommCounts{0, 1, 0, 0});
  CHECK(plan(*one, {12, 3}, "S(1)", "S(-1)")->steps.empty());  // equal once normalised
  CHECK(plan(*one, {8, 5}, "S(0)", "S(1)")->comm_counts == CommCounts{0, 0, 0, 1});
  auto two = make_planner(mesh_context({2, 2}, {}), CostModelKind::kNccl);
  CHECK(plan(*two, {8, 8}, "S(0),S(1)", "S(0),S(0)")->comm_counts.total() == 1);
  CHECK(plan(*two, {8, 8}, "S(0),S(1)", "S(1),S(0)")->comm_counts.total() == 2);
  CHECK(plan(*two, {8, 8}, "S(0),S(0)", "S(1),S(1)")->comm_counts.total() == 2);
  CHECK(plan(*two, {8, 8, 8}, "S(0),S(2)", "S(1),S(0)")->comm_counts.total() == 2);
  CHECK(plan(*two, {8, 8, 8}, "S(1),S(1)", "S(1),S(2)")->comm_counts.total() == 1);
  CHECK(plan(*two, {12, 3}, "R,R", "P(sum),P(sum)")->comm_counts.total() == 0);
  // (4,1): every step of the size-1 dim is skipped.
  auto thin = make_planner(mesh_context({4, 1}, {}), CostModelKind::kNccl);
  for (const char* s : {"S(0),S(1)", "S(0),R", "S(0),P(sum)"}) {
    for (const char* d : {"S(0),S(0)", "S(0),S(1)", "S(0),R"}) {
      auto p = plan(*thin, {16, 8}, s, d);
      CHECK(p->comm_counts.total() == 0);
      CHECK(p->total_cost_us == 0);
    }
  }
}

// The local shape of every rank after the plan, row-major over the mesh.
std::vector<Ints> shapes_after(const RedistPlan& plan) {
  std::vector<Ints> out;
  for (const auto& [coord, shape] : testing::rank_shapes_after(plan)) out.push_back(shape);
  CHECK(testing::check_rank_shapes(plan, plan.mesh.shape) == "");
  return out;
}

TEST_CASE("planner: the uneven local sizes of 6.1 (cases 1, 6, 13, 15, 27-29)") {
  auto one = make_planner(mesh_context({4}, {}), CostModelKind::kNccl);
  using V = std::vector<Ints>;
  CHECK(shapes_after(*plan(*one, {13, 3}, "S(0)", "R")) == V(4, Ints{13, 3}));
  CHECK(shapes_after(*plan(*one, {13, 3}, "R", "S(0)")) == V{{4, 3}, {4, 3}, {4, 3}, {1, 3}});
  CHECK(shapes_after(*plan(*one, {3, 14}, "R", "S(1)")) == V{{3, 4}, {3, 4}, {3, 4}, {3, 2}});
  CHECK(shapes_after(*plan(*one, {13, 3}, "P(sum)", "S(0)")) == V{{4, 3}, {4, 3}, {4, 3}, {1, 3}});
  CHECK(shapes_after(*plan(*one, {2, 8}, "R", "S(0)")) == V{{1, 8}, {1, 8}, {0, 8}, {0, 8}});
  CHECK(shapes_after(*plan(*one, {2, 8}, "S(0)", "R")) == V(4, Ints{2, 8}));
  CHECK(shapes_after(*plan(*one, {2, 8}, "S(0)", "S(1)")) == V(4, Ints{2, 2}));
  auto two = make_planner(mesh_context({2, 2}, {}), CostModelKind::kNccl);
  for (const Ints& shape : {Ints{10, 5}, Ints{9, 5}, Ints{3, 5}, Ints{1, 3}}) {
    for (const char* src : {"S(0),S(0)", "S(0),S(1)"}) {
      CHECK(shapes_after(*plan(*two, shape, src, "R,R")) == V(4, shape));
    }
  }
}

TEST_CASE("planner: the flattened trace of 4.4") {
  auto p = make_planner(mesh_context({2, 2}, {"A", "B"}, {{"A", "B"}}), CostModelKind::kNccl);
  auto r = plan(*p, {8, 8}, "S(0),S(0)", "R,R");
  CHECK(r->trace == "S(0)[0]S(0)[1]-->RR");
  CHECK(r->comm_counts == CommCounts{1, 0, 0, 0});
  CHECK(r->steps[0].group_size == 4);
  CHECK(r->steps[0].bytes == 16 * 4);  // each rank's 2x8 f32 shard
}

TEST_CASE("planner: auto follows DTensor's selection rule") {
  auto p = make_planner(mesh_context({2, 2}, {}), CostModelKind::kNccl);
  CHECK(plan(*p, {8, 8}, "S(0),S(0)", "R,R")->planner == PlannerKind::kGreedy);
  CHECK(plan(*p, {8, 8}, "S(0)[1],S(0)[0]", "R,R")->planner == PlannerKind::kMinCost);
  CHECK(plan(*p, {8, 8}, "_S(0,2),S(0)", "R,R")->planner == PlannerKind::kMinCost);
  CHECK(plan(*p, {8, 8}, "S(0),S(0)", "R,R", {PlannerKind::kMinCost})->planner ==
        PlannerKind::kMinCost);
  core::Error e = failure(*p, {8, 8}, "S(0)[1],S(0)[0]", "R,R", {PlannerKind::kGreedy});
  CHECK(e.kind == core::ErrorKind::kUnsupported);
  CHECK(e.message.find("greedy") != std::string::npos);
  // A decodable StridedShard plans on its Shard + shard order form.
  auto s = plan(*p, {8, 8}, "_S(0,2),S(0)", "R,R");
  CHECK(s->trace.rfind("S(0)[1]S(0)[0]", 0) == 0);
}

TEST_CASE("planner: unsupported and malformed requests") {
  auto p = make_planner(mesh_context({2, 2}, {"dp", "tp"}), CostModelKind::kNccl);
  core::Error a = failure(*p, {8}, "P(sum),R", "P(max),R");
  CHECK(a.kind == core::ErrorKind::kUnsupported);
  CHECK(a.message.find("mesh dim dp") != std::string::npos);
  CHECK(a.message.find("Partial(sum) to Partial(max)") != std::string::npos);
  core::Error b = failure(*p, {8}, "S(0),R", "P(sum),R");
  CHECK(b.kind == core::ErrorKind::kUnsupported);
  CHECK(b.message.find("Shard(dim=0) to Partial(sum)") != std::string::npos);
  auto r = p->plan(spec_of({8}, "R,R", {2, 2}), spec_of({9}, "R,R", {2, 2}), {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  auto m = p->plan(spec_of({8}, "R,R,R", {2, 2, 2}), spec_of({8}, "R,R,R", {2, 2, 2}), {});
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().kind == core::ErrorKind::kBadInput);
  // The cost-only path refuses the same requests the same way.
  auto c = p->cost_uncached(spec_of({8}, "S(0),R", {2, 2}), spec_of({8}, "P(sum),R", {2, 2}), {});
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == b.message);
  auto d = p->cost_uncached(spec_of({8}, "R,R", {2, 2}), spec_of({9}, "R,R", {2, 2}), {});
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().kind == core::ErrorKind::kBadInput);
}

TEST_CASE("planner: Replicate -> Partial is a priced local op (sum), the identity otherwise") {
  for (CostModelKind kind : {CostModelKind::kNccl, CostModelKind::kDTensor}) {
    auto p = make_planner(mesh_context({4}, {}), kind);
    auto sum = plan(*p, {1024, 1024}, "R", "P(sum)");
    REQUIRE(sum->steps.size() == 1);
    CHECK(sum->steps[0].transform.kind == StepKind::kLocalPartition);
    CHECK(sum->steps[0].cost_us > 0);
    for (const char* op : {"P(avg)", "P(max)", "P(min)"}) {
      auto r = plan(*p, {1024, 1024}, "R", op);
      REQUIRE(r->steps.size() == 1);
      CHECK(r->steps[0].cost_us == 0);
    }
  }
}

TEST_CASE("planner: plans are cached; warnings reach the sink once") {
  WarningSink sink;
  auto p = make_planner(mesh_context({2, 2, 2}, {"A", "B", "C"}), CostModelKind::kNccl, &sink);
  auto a = plan(*p, {8, 8}, "P(sum),R,P(sum)", "R,R,R");
  auto b = plan(*p, {8, 8}, "P(sum),R,P(sum)", "R,R,R");
  CHECK(a.get() == b.get());
  CHECK(p->cache_hits() == 1);
  CHECK(p->cache_misses() == 1);
  REQUIRE(a->warnings.size() == 1);
  CHECK(sink.emitted().size() == 1);
  auto c = plan(*p, {8, 8}, "P(sum),R,P(sum)", "R,R,R", {PlannerKind::kAuto, false});
  CHECK(c.get() != a.get());
  CHECK(c->warnings.empty());  // the pass is off: it warns nothing
  CHECK(p->cache_misses() == 2);
  CHECK(sink.emitted().size() == 1);
}

TEST_CASE("planner: the determinism case of issue 171916 (P,P,R on a flattened mesh)") {
  auto p =
      make_planner(mesh_context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}), CostModelKind::kNccl);
  auto r = plan(*p, {16, 16, 16}, "P(sum),R,P(sum)", "R,R,R");
  CHECK(r->comm_counts == CommCounts{0, 1, 0, 0});
  CHECK(r->steps[0].transform.flattened_mesh == "A_C");
  CHECK(r->trace == "P(sum)RP(sum)-->RRR");
  CHECK(r->warnings.empty());
}

TEST_CASE("planner: a merged P(avg) is priced as NCCL's native average") {
  // ncclAvg averages in the collective: one P(avg) all_reduce over the flattened group costs what
  // the P(sum) one does, with no divide kernel after it. Mixed P(sum) and P(avg) members still
  // run as a sum and a divide by the P(avg) dims' sizes.
  for (CostModelKind model : {CostModelKind::kNccl, CostModelKind::kDTensor}) {
    auto p = make_planner(mesh_context({2, 4}, {"A", "B"}, {{"A", "B"}}, 4), model);
    for (PlannerKind kind : {PlannerKind::kGreedy, PlannerKind::kMinCost}) {
      CAPTURE(planner_name(kind));
      auto avg = plan(*p, {64, 64}, "P(avg),P(avg)", "R,R", {kind, true});
      auto sum = plan(*p, {64, 64}, "P(sum),P(sum)", "R,R", {kind, true});
      CHECK(avg->steps.size() == sum->steps.size());
      CHECK(avg->total_cost_us == sum->total_cost_us);
      CHECK(plan(*p, {64, 64}, "P(avg),P(avg)", "S(0),S(0)", {kind, true})->total_cost_us ==
            plan(*p, {64, 64}, "P(sum),P(sum)", "S(0),S(0)", {kind, true})->total_cost_us);
    }
    auto avg = plan(*p, {64, 64}, "P(avg),P(avg)", "R,R", {PlannerKind::kGreedy, true});
    REQUIRE(avg->steps.size() == 1);
    CHECK(to_string(avg->steps[0].transform) == "0,1:P(avg)->R@A_B");
    auto mixed = plan(*p, {64, 64}, "P(sum),P(avg)", "R,R", {PlannerKind::kGreedy, true});
    REQUIRE(mixed->steps.size() == 1);
    CHECK(to_string(mixed->steps[0].transform) == "0,1:P(sum)->R@A_B/4");
    CHECK(mixed->total_cost_us >
          plan(*p, {64, 64}, "P(sum),P(sum)", "R,R", {PlannerKind::kGreedy, true})->total_cost_us);
  }
}

TEST_CASE("planner: a greedy merge that costs more than the steps it replaces is noted") {
  // 2,8 on 8 GPUs per node: B lies inside a node, A crosses nodes; one all_reduce over all 16
  // ranks costs more here than an NVLink all_reduce over B and a 2-rank one over A.
  auto p = make_planner(mesh_context({2, 8}, {"A", "B"}, {{"A", "B"}}), CostModelKind::kNccl);
  auto merged = plan(*p, {65536}, "P(sum),P(sum)", "R,R", {PlannerKind::kGreedy, true});
  auto apart = plan(*p, {65536}, "P(sum),P(sum)", "R,R", {PlannerKind::kGreedy, false});
  REQUIRE(merged->steps.size() == 1);
  REQUIRE(apart->steps.size() == 2);
  CHECK(merged->total_cost_us > apart->total_cost_us);
  REQUIRE(merged->warnings.size() == 1);
  const Warning& w = merged->warnings[0];
  CHECK(w.reason == WarningReason::kMergeCostsMore);
  CHECK(w.mesh_dims == std::vector<std::int32_t>{0, 1});
  INFO(w.message);
  CHECK(w.message.find("costs " + core::format_fixed(merged->total_cost_us, 3) +
                       " us, more than the 2 separate all_reduce steps it replaces (" +
                       core::format_fixed(apart->total_cost_us, 3) + " us)") != std::string::npos);
  CHECK(w.message.find("merges unconditionally, as DTensor does") != std::string::npos);
  CHECK(apart->warnings.empty());
  // The min-cost planner merges only where it pays: no note, and no dearer than either.
  auto exact = plan(*p, {65536}, "P(sum),P(sum)", "R,R", {PlannerKind::kMinCost, true});
  CHECK(exact->warnings.empty());
  CHECK(exact->total_cost_us <= apart->total_cost_us);
}

}  // namespace
}  // namespace dtplan::redist
