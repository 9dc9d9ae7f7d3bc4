// The exact min-cost planner: optimality against an exhaustive enumeration, A* against plain
// Dijkstra (the same plan: the tie-break rules do not depend on the heuristic), the Dijkstra
// choices of docs/reference/placements.md §3.4, StridedShard and shard-order moves, and its limits.

#include "redist/min_cost_planner.h"

#include <doctest/doctest.h>

#include <random>

#include "placement/placement_text.h"
#include "redist/search_space.h"
#include "support/placement_specs.h"
#include "support/profiles.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using testing::mesh_context;
using testing::state_of;
using Ints = std::vector<std::int64_t>;

struct Fixture {
  MeshContext ctx;
  std::unique_ptr<CostModel> model;
  StepPricer pricer;
  MinCostPlanner planner;
  Fixture(MeshContext c, CostModelKind kind)
      : ctx(std::move(c)),
        model(make_cost_model(kind, testing::profile("h100-dgx"))),
        pricer(ctx, *model),
        planner(pricer) {}

  SearchResult plan(const Ints& shape, const RedistState& a, const RedistState& b,
                    SearchOptions o = {}) {
    auto r = planner.plan(shape, core::DType::kF32, a, b, o);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
    return std::move(r).value();
  }
};

std::string text(const SearchResult& r) {
  std::string out;
  for (const Transform& t : r.steps) out += (out.empty() ? "" : " ") + to_string(t);
  return out;
}

// Cheapest cost over every move sequence of at most `depth` steps (exhaustive, no pruning beyond
// the best found).
class Exhaustive final : public MoveVisitor {
 public:
  Exhaustive(SearchSpace& space, StepPricer& pricer, StateKey target)
      : space_(space), pricer_(pricer), target_(target) {}
  void run(StateKey from, std::int64_t cost, int depth) {
    if (cost >= best) return;
    if (from == target_) {
      best = cost;
      return;
    }
    if (depth == 0) return;
    std::vector<std::pair<StateKey, std::int64_t>> next;
    space_.load(from);
    pending_ = &next;
    space_.moves(*this);
    for (auto [key, c] : next) run(key, cost + c, depth - 1);
  }
  bool visit(const Move& mv) override {
    pending_->push_back({mv.next, pricer_.price(space_.query(mv)).value().cost_ps});
    return true;
  }
  std::int64_t best = std::numeric_limits<std::int64_t>::max();

 private:
  SearchSpace& space_;
  StepPricer& pricer_;
  StateKey target_;
  std::vector<std::pair<StateKey, std::int64_t>>* pending_ = nullptr;
};

TEST_CASE("min-cost: the Dijkstra choice of 3.4 (gather + chunk beats the all_to_all)") {
  Fixture f(mesh_context({2, 2, 2}, {}), CostModelKind::kDTensor);
  SearchResult r = f.plan({8, 8, 8}, state_of("S(0),R,R"), state_of("S(1),R,R"));
  CHECK(text(r) == "0:S(0)->R 0:R->S(1)");
  CHECK(static_cast<double>(r.cost_ps) / 1e6 == doctest::Approx(7.211).epsilon(1e-4));
  // A big tensor makes the all_to_all (which moves the local shard once) the cheaper one.
  SearchResult big = f.plan({1024, 1024, 8}, state_of("S(0),R,R"), state_of("S(1),R,R"));
  CHECK(text(big) == "0:S(0)->S(1)");
}

TEST_CASE("min-cost: shard orders and StridedShards on a 4-D mesh") {
  Fixture f(mesh_context({2, 2, 2, 2}, {"a", "b", "c", "d"}, {{"a", "b"}, {"c", "d"}}),
            CostModelKind::kNccl);
  const Ints shape = {64, 32, 16};
  SearchResult r = f.plan(shape, state_of("S(0)[1],S(0)[0],S(1),R"), state_of("R,R,S(0),S(0)"));
  CHECK_FALSE(r.steps.empty());
  SearchResult s = f.plan(shape, state_of("_S(0,2),S(0),R,P(sum)"), state_of("S(1),R,_S(0,4),R"));
  CHECK_FALSE(s.steps.empty());
  // Reversing a nested order needs real steps; the search finds them.
  SearchResult rev = f.plan(shape, state_of("S(0)[0],S(0)[1],S(0)[2],S(0)[3]"),
                            state_of("S(0)[3],S(0)[2],S(0)[1],S(0)[0]"));
  CHECK(rev.steps.size() >= 4);
}

TEST_CASE("min-cost: optimal against an exhaustive enumeration on small meshes") {
  std::mt19937_64 rng(99);
  const std::vector<placement::Placement> all = testing::basic_placements(2);
  for (int i = 0; i < 40; ++i) {
    const Ints mesh = {testing::uniform(rng, 1, 3), testing::uniform(rng, 2, 3)};
    Fixture f(mesh_context(mesh, {"a", "b"}, {{"a", "b"}}),
              i % 2 ? CostModelKind::kNccl : CostModelKind::kDTensor);
    const Ints shape = {testing::uniform(rng, 1, 9), testing::uniform(rng, 1, 9)};
    RedistState a{{all[rng() % all.size()], all[rng() % all.size()]}, {}};
    RedistState b{{all[rng() % all.size()], all[rng() % all.size()]}, {}};
    a.order = placement::default_shard_order(a.placements);
    b.order = placement::default_shard_order(b.placements);
    bool supported = true;
    for (int m = 0; m < 2; ++m) {
      const auto& x = a.placements[static_cast<std::size_t>(m)];
      const auto& y = b.placements[static_cast<std::size_t>(m)];
      supported = supported && (x == y || !y.is_partial() || x.is_replicate());
    }
    if (!supported) continue;
    INFO(trace_state(a) << " -> " << trace_state(b) << " on " << mesh[0] << "x" << mesh[1]);
    SearchResult r = f.plan(shape, a, b);
    SearchSpace space;
    REQUIRE(space.setup(f.ctx, shape, core::DType::kF32, a, std::span(&b, 1), true).ok());
    Exhaustive ex(space, f.pricer, space.encode(b));
    ex.run(space.encode(a), 0, 5);
    CHECK(r.cost_ps == ex.best);
  }
}

// (Ties of f can make A* expand a few more states than Dijkstra on a single request, e.g. with
// an empty tensor where every step costs its latency; in total it expands far fewer.)
TEST_CASE("min-cost: A* returns exactly Dijkstra's plan, expanding fewer states in total") {
  std::mt19937_64 rng(1234);
  std::size_t astar = 0, dijkstra = 0;
  for (int i = 0; i < 60; ++i) {
    testing::RandomRequest req = testing::random_request(rng, true, true);
    testing::Names names;
    for (std::size_t d = 0; d < req.mesh.size(); ++d) names.push_back("d" + std::to_string(d));
    std::vector<testing::Names> flats;
    if (req.mesh.size() >= 2) flats.push_back({names[0], names.back()});
    Fixture f(mesh_context(req.mesh, names, flats),
              i % 2 ? CostModelKind::kNccl : CostModelKind::kDTensor);
    INFO(req.describe());
    const RedistState a = plan_endpoint(req.src, req.mesh);
    const RedistState b = plan_endpoint(req.dst, req.mesh);
    SearchResult x = f.plan(req.src.shape(), a, b);
    SearchResult y = f.plan(req.src.shape(), a, b, {true, Heuristic::kNone});
    CHECK(x.cost_ps == y.cost_ps);
    CHECK(x.steps == y.steps);
    astar += x.settled;
    dijkstra += y.settled;
  }
  MESSAGE("states expanded: A* " << astar << ", Dijkstra " << dijkstra);
  CHECK(astar < dijkstra);
}

TEST_CASE("min-cost: limits are unsupported errors") {
  std::vector<std::int64_t> nine(9, 1);
  nine[0] = 2;
  Fixture f(mesh_context(nine, {}), CostModelKind::kNccl);
  RedistState a = state_of("S(0),R,R,R,R,R,R,R,R");
  RedistState b = state_of("R,R,R,R,R,R,R,R,R");
  auto r = f.planner.plan(Ints{8}, core::DType::kF32, a, b, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kUnsupported);
  Fixture g(mesh_context({2, 2, 2, 2}, {}), CostModelKind::kNccl);
  auto s = g.planner.plan(
      Ints{16, 16, 16}, core::DType::kF32, state_of("S(0)[0],S(0)[1],S(0)[2],S(0)[3]"),
      state_of("S(2)[3],S(2)[2],S(2)[1],S(2)[0]"), {true, Heuristic::kNone, 10});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == core::ErrorKind::kUnsupported);
  CHECK(s.error().message.find("exceeded 10 states") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::redist
