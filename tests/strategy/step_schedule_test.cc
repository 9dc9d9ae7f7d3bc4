// Training options priced by the selection problem and recorded by the lowering: the schedules
// of the nodes (recomputed forward nodes, gradient nodes), the runs of every op and
// redistribution in the plan's cost and in the solver's objective, and the memory each
// checkpoint policy and gradient sync holds. Tiny LLaMA3 (B 4, S 16, D 64), hand-computed
// figures.

#include "strategy/step_schedule.h"

#include <doctest/doctest.h>

#include "graph/llama3_builder.h"
#include "plan/step_runs.h"
#include "strategy/memory_model.h"
#include "support/selection_testing.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

graph::Graph tiny(core::CheckpointPolicy policy, std::int64_t batch = 4,
                  std::int64_t grad_accum = 1) {
  graph::Llama3Config c;
  c.name = "tiny";
  c.dim = 64;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.vocab_size = 256;
  c.ffn_dim = 128;
  c.batch = batch;
  c.seq_len = 16;
  c.checkpoint = policy;
  c.grad_accum = grad_accum;
  return graph::build_llama3(c).value();
}

// The label of `op` whose every output keeps its full shape (all-Replicate).
std::size_t replicated(const graph::Node& node, const OpStrategy& op) {
  for (std::size_t l = 0; l < op.size(); ++l) {
    bool full = true;
    for (std::size_t o = 0;
         o < node.outputs.size() && o < op.strategies[l].local_output_shapes.size(); ++o) {
      full = full && op.strategies[l].local_output_shapes[o] == node.outputs[o].shape;
    }
    if (full) return l;
  }
  FAIL("no replicated strategy for " << node.name);
  return 0;
}

// Bytes of the saved activations owned by nodes of the layers, all-Replicate.
std::int64_t layer_activation_bytes(const Enumerated& e, const MemoryTerms& t) {
  std::int64_t bytes = 0;
  for (const ActivationMemory& a : t.activations) {
    const graph::Node& n = e.graph.node(a.node);
    if (n.layer >= 0) bytes += a.bytes[replicated(n, e.strategies.of(a.node))];
  }
  return bytes;
}

TEST_CASE("step schedule: saved activations of each checkpoint policy") {
  // Full: each block keeps its input only. Block 1's is block 0's output, bf16 [4,16,64] = 8192 B;
  // block 0's is the embedding's output and the last block's output feeds the final norm, whose
  // saved values are outside the layers.
  {
    const Enumerated e = enumerate(tiny(core::CheckpointPolicy::kFull), {2});
    CHECK(layer_activation_bytes(e, memory_terms(e.graph, e.strategies).value()) == 8192);
  }
  // selective_op: per block the wq (bf16 [4,16,64]: 8192 B), wv ([4,16,32]: 4096) and w1
  // ([4,16,128]: 16384) outputs and the SDPA's output (bf16 [4,4,16,16]: 8192), logsumexp (f32
  // [4,4,16]: 1024) and RNG seed and offset (i64 scalars: 16): 37904 B; w2's output is saved by
  // the policy but nothing in the backward reads it (the residual add's gradient needs no
  // value). Plus block 1's input: 2 x 37904 + 8192 = 84000 B.
  {
    const Enumerated e = enumerate(tiny(core::CheckpointPolicy::kSelectiveOp), {2});
    CHECK(layer_activation_bytes(e, memory_terms(e.graph, e.strategies).value()) == 84000);
  }
  // none keeps more than either.
  {
    const Enumerated e = enumerate(tiny(core::CheckpointPolicy::kNone), {2});
    CHECK(layer_activation_bytes(e, memory_terms(e.graph, e.strategies).value()) > 84000);
  }
}

TEST_CASE("step schedule: unsharded fp32 gradients accumulate only without per-microbatch sync") {
  const Enumerated e = enumerate(tiny(core::CheckpointPolicy::kNone, 16, 4), {2});
  const core::TrainingOptions every{.grad_accum = 4};
  CHECK(memory_terms(e.graph, e.strategies, every).value().accumulators.empty());
  const core::TrainingOptions last{.grad_accum = 4, .grad_sync = core::GradSync::kLastMicrobatch};
  const MemoryTerms t = memory_terms(e.graph, e.strategies, last).value();
  // One per parameter (2 x 9 + 3), at full size in fp32: 4 x the parameter count
  // 2 x 256 x 64 + 64 + 2 x (2 x 64^2 + 2 x 64 x 32 + 3 x 64 x 128 + 2 x 64) = 106816.
  REQUIRE(t.accumulators.size() == 21);
  std::int64_t bytes = 0;
  for (const ActivationMemory& a : t.accumulators) {
    bytes += a.bytes[replicated(e.graph.node(a.node), e.strategies.of(a.node))];
  }
  CHECK(bytes == 4 * 106816);
}

TEST_CASE("step schedule: recomputed nodes run twice in the plan's cost and the objective") {
  const auto ctx = context({4}, {"dp"});
  for (auto policy : {core::CheckpointPolicy::kNone, core::CheckpointPolicy::kSelectiveOp,
                      core::CheckpointPolicy::kFull}) {
    for (std::int64_t accum : {1, 4}) {
      CAPTURE(static_cast<int>(policy));
      CAPTURE(accum);
      const graph::Graph g = tiny(policy, 16, accum);
      ModelPlanOptions o;
      o.training = {.checkpoint = policy, .grad_accum = accum};
      const plan::Plan p = plan_or_fail(g, ctx, o).plan;
      CHECK(p.training == o.training);
      double compute = 0;
      std::int64_t recomputed = 0;
      for (const plan::PlanOp& op : p.ops) {
        const std::int64_t runs = plan::op_runs(op.schedule, p.training);
        CHECK(runs == accum * (op.schedule == plan::OpSchedule::kRecompute ? 2 : 1));
        compute += static_cast<double>(runs) * op.compute_us;
        recomputed += op.schedule == plan::OpSchedule::kRecompute ? 1 : 0;
      }
      CHECK(p.cost.compute_us == doctest::Approx(compute).epsilon(1e-12));
      // The objective is the plan's cost per step.
      CHECK(p.solver.objective_us == doctest::Approx(p.cost.total_us).epsilon(1e-9));
      if (policy == core::CheckpointPolicy::kNone) CHECK(recomputed == 0);
      if (policy != core::CheckpointPolicy::kNone) CHECK(recomputed > 0);
    }
  }
}

}  // namespace
}  // namespace dtplan::strategy::testing
