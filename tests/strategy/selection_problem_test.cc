#include "strategy/selection_problem.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>

#include "graph/graph_builder.h"
#include "solve/evaluate.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

namespace {

struct Exported {
  Enumerated e;
  std::unique_ptr<EdgeCoster> coster;
  Constraints constraints;
  SelectionProblem sp;
};

Exported export_tiny(const std::vector<std::int64_t>& mesh, std::optional<std::int64_t> limit,
                     FollowerMode followers = FollowerMode::kTie) {
  Exported x{enumerate(tiny_llama3_graph(1), mesh), nullptr, {}, {}};
  std::vector<std::string> names = {"dp", "tp", "cp"};
  names.resize(mesh.size());
  x.coster = make_coster(context(mesh, names));
  x.constraints = default_constraints(x.e.graph, x.e.strategies, mesh.size());
  x.constraints.memory_limit_bytes = limit;
  auto sp =
      export_problem(x.e.graph, x.e.strategies, x.constraints, *x.coster, ExportOptions{followers});
  REQUIRE_MESSAGE(sp.ok(), (sp.ok() ? "" : sp.error().message));
  x.sp = std::move(sp).value();
  return x;
}

}  // namespace

TEST_CASE("selection problem: x * x ties both argument slots to the producer") {
  graph::GraphBuilder b("square");
  const graph::NodeId x = b.placeholder("x", core::OpRole::kInput, f32({8, 8}));
  b.op(OpKind::kMul, "sq", {x, x});
  const Enumerated e = enumerate(finish(std::move(b)), {2});
  auto coster = make_coster(context({2}, {"dp"}));
  auto sp = export_problem(e.graph, e.strategies, {}, *coster).value();
  REQUIRE(sp.problem.nodes.size() == 2);
  REQUIRE(sp.problem.edges.size() == 2);
  CHECK(sp.problem.edges[0].slot == 0);
  CHECK(sp.problem.edges[1].slot == 1);
  CHECK(sp.problem.edges[0].from == sp.problem.edges[1].from);
  // x = S(0) and sq expecting (S(0), R) pays the all-gather for slot 1 only: AutoParallel's flow
  // constraint left slot 1's producer label free (docs/reference/strategy_selection.md §1.5 rule
  // 3); here both are tied.
  const OpStrategy& xs = e.of("x");
  const OpStrategy& sq = e.of("sq");
  const auto xi = static_cast<solve::LabelIndex>(strategy_index(xs, "S(0) <-"));
  REQUIRE(xi >= 0);
  for (std::size_t o = 0; o < sq.size(); ++o) {
    const Strategy& s = sq.strategies[o];
    std::vector<solve::LabelIndex> labels = {xi, static_cast<solve::LabelIndex>(o)};
    const solve::Evaluation ev = solve::evaluate(sp.problem, labels).value();
    const double expect = coster->cost_us(f32({8, 8}), pl("S(0)"), s.inputs[0]).value() +
                          coster->cost_us(f32({8, 8}), pl("S(0)"), s.inputs[1]).value();
    CHECK((ev.pairwise_us == expect || (std::isinf(expect) && std::isinf(ev.pairwise_us))));
  }
}

TEST_CASE("selection problem: evaluate() prices a labelling as compute + redistribution") {
  const Exported x = export_tiny({4}, std::nullopt, FollowerMode::kFree);
  const graph::Graph& g = x.e.graph;
  const solve::Problem& p = x.sp.problem;
  CHECK(p.nodes.size() + 1 == g.size());                   // every node but the output node
  CHECK(p.followers.size() == x.constraints.ties.size());  // kFree: only the ties
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<solve::LabelIndex> labels;
    for (const solve::Node& n : p.nodes) {
      labels.push_back(static_cast<solve::LabelIndex>(rng() % n.cost_us.size()));
    }
    const std::vector<std::int32_t> choice = map_solution(x.sp, labels).value();
    CHECK(labels_of(x.sp, choice) == labels);
    double compute = 0;
    double redistribution = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (choice[i] < 0) continue;
      const graph::Node& node = g.nodes()[i];
      const Strategy& s = x.e.strategies.of(graph::node_id(i)).strategies[choice[i]];
      compute += s.compute_us;
      const std::size_t out = producer_output_index(node);
      for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
        const graph::NodeId pid = node.inputs[slot];
        const Strategy& ps =
            x.e.strategies.of(pid)
                .strategies[choice[static_cast<std::size_t>(graph::index_of(pid))]];
        redistribution +=
            x.coster->cost_us(g.node(pid).outputs[out], ps.outputs[out], s.inputs[slot]).value();
      }
    }
    const solve::Evaluation ev = solve::evaluate(p, labels).value();
    CHECK(ev.unary_us == doctest::Approx(compute));
    if (std::isinf(redistribution)) {
      CHECK(std::isinf(ev.pairwise_us));
    } else {
      CHECK(ev.pairwise_us == doctest::Approx(redistribution));
    }
  }
  CHECK_FALSE(map_solution(x.sp, std::vector<solve::LabelIndex>(3, 0)).ok());
}

TEST_CASE("selection problem: pins, ties, followers and repeats") {
  const Exported x = export_tiny({4}, std::nullopt, FollowerMode::kTie);
  const solve::Problem& p = x.sp.problem;
  REQUIRE(p.pins.size() == x.constraints.pins.size());
  for (std::size_t k = 0; k < p.pins.size(); ++k) {
    const NodePin& pin = x.constraints.pins[k];
    const OpStrategy& op = x.e.strategies.of(pin.node);
    CHECK(p.pins[k].node == x.sp.problem_node[static_cast<std::size_t>(graph::index_of(pin.node))]);
    for (solve::LabelIndex l : p.pins[k].labels)
      CHECK(op.strategies[l].outputs[0] == pin.placements);
    CHECK_FALSE(p.pins[k].labels.empty());
  }
  // kTie: one follower per follower rule, plus one per tie (grads are aliases: never followers).
  std::size_t followers = 0;
  for (graph::NodeId id : x.sp.graph_node) followers += x.e.strategies.of(id).is_follower() ? 1 : 0;
  CHECK(p.followers.size() == followers + x.constraints.ties.size());
  for (const PairTie& tie : x.constraints.ties) {
    const auto f = x.sp.problem_node[static_cast<std::size_t>(graph::index_of(tie.follower))];
    const auto it = std::find_if(p.followers.begin(), p.followers.end(),
                                 [&](const solve::Follower& fo) { return fo.node == f; });
    REQUIRE(it != p.followers.end());
    const OpStrategy& lead = x.e.strategies.of(tie.leader);
    const OpStrategy& fol = x.e.strategies.of(tie.follower);
    for (std::size_t j = 0; j < lead.size(); ++j) {
      const solve::LabelIndex m = it->label_map[j];
      if (m >= 0) CHECK(fol.strategies[m].outputs[0] == lead.strategies[j].outputs[0]);
    }
  }
  CHECK(solve::validate(p).ok());
  CHECK(p.repeats.empty());  // one layer: nothing repeats
  const Exported two{
      enumerate(tiny_llama3_graph(2), {2}), make_coster(context({2}, {"dp"})), {}, {}};
  auto sp2 = export_problem(two.e.graph, two.e.strategies, {}, *two.coster).value();
  REQUIRE(sp2.problem.repeats.size() == 1);
  CHECK(sp2.problem.repeats[0].blocks.size() == 2);
  CHECK(solve::validate(sp2.problem).ok());
  // Edges priced alike share one matrix: the second layer's edges add no storage.
  std::set<const double*> storage;
  std::vector<solve::NodeIndex> block_of(sp2.problem.nodes.size(), -1);
  const auto& blocks = sp2.problem.repeats[0].blocks;
  for (std::size_t p = 0; p < blocks[1].size(); ++p) block_of[blocks[1][p]] = blocks[0][p];
  std::size_t layer1 = 0;
  for (const solve::Edge& e : sp2.problem.edges) {
    if (block_of[e.from] >= 0 && block_of[e.to] >= 0) {
      ++layer1;
      const auto same = std::find_if(
          sp2.problem.edges.begin(), sp2.problem.edges.end(), [&](const solve::Edge& f) {
            return f.from == block_of[e.from] && f.to == block_of[e.to] && f.slot == e.slot;
          });
      REQUIRE(same != sp2.problem.edges.end());
      CHECK(same->cost_us.shares(e.cost_us));
    }
    storage.insert(e.cost_us.data());
  }
  CHECK(layer1 > 10);
  CHECK(storage.size() <= two.coster->matrices_built());
}

TEST_CASE("selection problem: the default parameter budget and a per-rank memory limit") {
  const Exported d = export_tiny({4}, std::nullopt);
  REQUIRE(d.sp.problem.memory.size() == 1);
  const solve::MemoryRow& row = d.sp.problem.memory[0];
  CHECK(row.name == "parameters");
  std::int64_t min_sum = 0;
  for (const ParameterMemory& pm : d.sp.memory.parameters) {
    min_sum += *std::min_element(pm.param_bytes.begin(), pm.param_bytes.end());
  }
  CHECK(row.high_bytes == min_sum);
  CHECK(row.terms.size() == d.sp.memory.parameters.size());

  const Exported l = export_tiny({4}, std::int64_t{1} << 30);
  REQUIRE(l.sp.problem.memory.size() == 1);
  CHECK(l.sp.problem.memory[0].name == "memory");
  CHECK(l.sp.problem.memory[0].high_bytes == std::int64_t{1} << 30);
  CHECK(l.sp.problem.memory[0].terms.size() ==
        l.sp.memory.parameters.size() + l.sp.memory.activations.size());
  CHECK(l.sp.memory_minimum_bytes > 0);

  // Below the minimum: infeasible, with the minimum in the message.
  Enumerated e = enumerate(tiny_llama3_graph(1), {4});
  auto coster = make_coster(context({4}, {"dp"}));
  Constraints c = default_constraints(e.graph, e.strategies, 1);
  c.memory_limit_bytes = l.sp.memory_minimum_bytes - 1;
  auto sp = export_problem(e.graph, e.strategies, c, *coster);
  REQUIRE_FALSE(sp.ok());
  CHECK(sp.error().kind == core::ErrorKind::kUnsupported);
  CHECK(sp.error().message.find(std::to_string(l.sp.memory_minimum_bytes) + " B") !=
        std::string::npos);
  c.memory_limit_bytes = l.sp.memory_minimum_bytes;
  CHECK(export_problem(e.graph, e.strategies, c, *coster).ok());
}

TEST_CASE("selection problem: UnpinnedOps::kLocal pins each op its pinned producers fix") {
  graph::GraphBuilder b("square");
  const graph::NodeId x = b.placeholder("x", core::OpRole::kInput, f32({8, 8}));
  const graph::NodeId sq = b.op(OpKind::kMul, "sq", {x, x});
  b.op(OpKind::kMul, "quad", {sq, sq});
  const Enumerated e = enumerate(finish(std::move(b)), {2});
  auto coster = make_coster(context({2}, {"dp"}));
  Constraints c;
  c.pins.push_back({x, pl("S(0)"), -1});
  const auto free_sp = export_problem(e.graph, e.strategies, c, *coster).value();
  CHECK(free_sp.problem.pins.size() == 1);  // only x's

  c.unpinned = UnpinnedOps::kLocal;
  const auto sp = export_problem(e.graph, e.strategies, c, *coster).value();
  REQUIRE(sp.problem.pins.size() == 3);  // x's, then sq's and quad's in graph order
  for (const char* name : {"sq", "quad"}) {
    const solve::Pin& pin = sp.problem.pins[name == std::string("sq") ? 1 : 2];
    CHECK(sp.problem.nodes[static_cast<std::size_t>(pin.node)].name == name);
    REQUIRE(pin.labels.size() == 1);
    const Strategy& s = e.of(name).strategies[static_cast<std::size_t>(pin.labels[0])];
    CHECK(s.inputs == std::vector<Placements>{pl("S(0)"), pl("S(0)")});
  }
  // The plan it leaves is the one with no redistribution.
  std::vector<solve::LabelIndex> labels(sp.problem.nodes.size(), 0);
  for (const solve::Pin& pin : sp.problem.pins) {
    labels[static_cast<std::size_t>(pin.node)] = pin.labels[0];
  }
  const solve::Evaluation ev = solve::evaluate(sp.problem, labels).value();
  CHECK(ev.pairwise_us == 0.0);
}

}  // namespace dtplan::strategy::testing
