#include "strategy/memory_model.h"

#include <doctest/doctest.h>

#include <set>

#include "strategy/compute_cost.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {

TEST_CASE("memory model: parameters, gradients, Adam state and saved activations") {
  const graph::Graph& g = tiny_llama3_graph(1);
  const Enumerated e = enumerate(g, {4});
  const MemoryTerms t = memory_terms(g, e.strategies).value();
  std::size_t params = 0;
  for (const graph::Node& n : g.nodes()) params += n.role == core::OpRole::kParam ? 1 : 0;
  REQUIRE(t.parameters.size() == params);
  for (const ParameterMemory& p : t.parameters) {
    const graph::Node& n = g.node(p.param);
    const OpStrategy& op = e.strategies.of(p.param);
    REQUIRE(p.param_bytes.size() == op.size());
    for (std::size_t l = 0; l < op.size(); ++l) {
      std::int64_t numel = 1;
      for (std::int64_t s : op.strategies[l].local_output_shapes[0]) numel *= s;
      CHECK(p.param_bytes[l] == numel * 4);  // fp32 storage
      CHECK(p.grad_bytes[l] == numel * core::dtype_bytes(g.node(n.pair).outputs[0].dtype));
      CHECK(p.optimizer_bytes[l] == numel * kOptimizerStates * kOptimizerStateBytes);
    }
  }
  // Activations: storage owners only (no views, aliases, getitems or placeholders), forward,
  // never tagged for recomputation; the SDPA owns its output and logsumexp.
  REQUIRE_FALSE(t.activations.empty());
  bool sdpa = false;
  for (const ActivationMemory& a : t.activations) {
    const graph::Node& n = g.node(a.node);
    CHECK(n.phase == graph::Phase::kForward);
    CHECK(n.op != graph::OpKind::kPlaceholder);
    CHECK_FALSE(is_free_op(n, rule_for(n)));
    CHECK(n.checkpoint != graph::Checkpoint::kRecompute);
    if (graph::is_sdpa_forward(n.op)) {
      sdpa = true;
      // all-Replicate: out + lse (and rng state) at full size, at least out + lse.
      const std::int64_t out = 4 * 4 * 16 * 16 * 2;
      const std::int64_t lse = 4 * 4 * 16 * 4;
      CHECK(a.bytes[0] >= out + lse);
    }
  }
  CHECK(sdpa);
  // Totals: all-Replicate (label 0 of every node is its R strategy for leaves) sums the terms.
  std::vector<std::int32_t> choice(g.size(), 0);
  const MemoryTotals m = memory_totals(t, choice);
  std::int64_t p0 = 0;
  for (const ParameterMemory& p : t.parameters) p0 += p.param_bytes[0];
  CHECK(m.parameter_bytes == p0);
  CHECK(m.optimizer_bytes == 2 * m.gradient_bytes);  // fp32 gradients
  CHECK(m.peak_bytes ==
        m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes + m.activation_bytes);
}

}  // namespace dtplan::strategy::testing
