#include "sim/throughput.h"

#include <doctest/doctest.h>

#include "sim/timeline.h"
#include "support/plan_builder.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

using testing::PlanBuilder;

TEST_CASE("throughput: tokens/s per GPU and MFU by hand") {
  PlanBuilder b({2}, {"dp"}, 8);
  const auto tokens = b.op("tokens", 0, {}, plan::Phase::kForward, -1, core::OpRole::kInput);
  const auto emb_w = b.param("tok_embeddings.weight");
  const auto emb = b.op("tok_embeddings.embedding", 5, {emb_w, tokens});
  const auto wq = b.param("wq.weight");
  const auto q = b.op("q", 5, {emb, wq});
  const auto k = b.op("k", 5, {emb, wq});
  const auto att = b.op("attention", 5, {q, k, k});
  const auto out_w = b.param("output.weight");
  b.op("logits", 5, {att, out_w});
  plan::Plan p = b.build();
  auto set = [&](std::int32_t i, const char* op, std::vector<std::int64_t> shape) {
    p.ops[static_cast<std::size_t>(i)].op = op;
    p.ops[static_cast<std::size_t>(i)].shape = std::move(shape);
  };
  set(tokens, "placeholder", {2, 8});
  set(emb_w, "placeholder", {100, 16});
  set(emb, "embedding", {2, 8, 16});
  set(wq, "placeholder", {16, 16});
  set(k, "einsum", {2, 2, 8, 4});  // GQA: 2 key heads
  set(att, "_scaled_dot_product_flash_attention", {2, 4, 8, 4});
  set(out_w, "placeholder", {100, 16});
  // N = wq + output = 256 + 1600 (the embedding is left out); attention 12 x 4 x 4 x 8.
  const Throughput t = plan_throughput(p, 1000.0, 2, 1e9).value();
  CHECK(t.parameters == 1856);
  CHECK(t.attention_flops_per_token == 1536.0);
  CHECK(t.model_flops_per_token == 6.0 * 1856 + 1536);
  CHECK(t.tokens_per_step == 16);
  CHECK(t.tokens_per_s_per_gpu == doctest::Approx(8000.0));  // 16 tokens / 1 ms / 2 GPUs
  CHECK(t.mfu == doctest::Approx(12672.0 * 8000.0 / 1e9));
  // The graph is one microbatch's: with 4 of them in the step, 4x the tokens in the same time.
  p.training.grad_accum = 4;
  const Throughput four = plan_throughput(p, 1000.0, 2, 1e9).value();
  CHECK(four.tokens_per_step == 64);
  CHECK(four.tokens_per_s_per_gpu == doctest::Approx(32000.0));
  CHECK(four.mfu == doctest::Approx(4 * t.mfu));
}

TEST_CASE("throughput: a plan without tokens has none") {
  PlanBuilder b({2}, {"dp"}, 8);
  b.op("x", 1, {});
  CHECK(plan_throughput(b.build(), 1.0, 2, 1e9).error().kind == core::ErrorKind::kUnsupported);
}

// x (10 us) and y (100 us) run while the all-gather of w (40 us) feeds z; with the overlap factor
// 0.5, x stretches to 20 us, y does 10 us of work during the rest of the all-gather (20..40) and
// its last 90 us alone: z runs 130..140 (140 us instead of 120).
TEST_CASE("timeline: SM sharing slows compute while a collective runs") {
  PlanBuilder b({2}, {"dp"}, 8);
  const auto w = b.param("w");
  const auto x = b.op("x", 10, {});
  const auto y = b.op("y", 100, {x});
  const auto z = b.op("z", 10, {y, w});
  b.redistribute(z, 1, {testing::all_gather({0}, 40)});
  const plan::Plan p = b.build();
  TimelineOptions o;
  o.prefetch_depth = -1;
  o.hardware = testing::profile("h100-dgx");
  o.hardware->compute.nccl_overlap_compute_factor = 1.0;
  CHECK(simulate_step(p, o).value().step_time_us == doctest::Approx(120.0));
  o.hardware->compute.nccl_overlap_compute_factor = 0.5;
  const Timeline tl = simulate_step(p, o).value();
  CHECK(tl.step_time_us == doctest::Approx(140.0));
  CHECK(tl.compute_us == doctest::Approx(140.0));  // busy: x 0..20, y 20..130, z 130..140
  o.symmetry = false;
  CHECK(simulate_step(p, o).value().step_time_us == doctest::Approx(140.0));
}

}  // namespace
}  // namespace dtplan::sim
