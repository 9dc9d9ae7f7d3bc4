#include "sim/throughput.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace dtplan::sim {

namespace {

constexpr std::string_view kEmbeddingOp = "embedding";
constexpr std::string_view kSdpaPrefix = "_scaled_dot_product_";
constexpr std::string_view kBackwardSuffix = "_backward";

std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

// The op behind `op` through single-input ops (casts, views), stopping at a parameter or input.
std::int32_t source_of(const plan::Plan& plan, std::int32_t op) {
  while (op >= 0) {
    const plan::PlanOp& o = plan.ops[static_cast<std::size_t>(op)];
    if (o.role == core::OpRole::kParam || o.role == core::OpRole::kInput || o.inputs.size() != 1)
      break;
    op = o.inputs[0];
  }
  return op;
}

bool is_sdpa_forward(const plan::PlanOp& op) {
  return op.op.starts_with(kSdpaPrefix) && !op.op.ends_with(kBackwardSuffix);
}

}  // namespace

core::Result<Throughput> plan_throughput(const plan::Plan& plan, double step_time_us,
                                         std::int64_t gpus, double peak_flop_per_s) {
  Throughput t;
  std::set<std::int32_t> embedding_weights;
  std::set<std::int32_t> token_inputs;
  for (const plan::PlanOp& op : plan.ops) {
    if (op.op != kEmbeddingOp || op.inputs.size() < 2) continue;
    embedding_weights.insert(source_of(plan, op.inputs[0]));
    token_inputs.insert(source_of(plan, op.inputs[1]));
  }
  for (std::int32_t i : token_inputs) {
    if (i >= 0 && plan.ops[static_cast<std::size_t>(i)].role == core::OpRole::kInput) {
      t.tokens_per_step += numel(plan.ops[static_cast<std::size_t>(i)].shape);
    }
  }
  if (t.tokens_per_step == 0) {
    return core::Error::unsupported("throughput: the plan of '" + plan.model +
                                    "' has no token input feeding an embedding");
  }
  // The graph is one microbatch's; the step runs grad_accum of them.
  t.tokens_per_step *= std::max<std::int64_t>(1, plan.training.grad_accum);
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::PlanOp& op = plan.ops[i];
    if (op.role == core::OpRole::kParam &&
        embedding_weights.count(static_cast<std::int32_t>(i)) == 0) {
      t.parameters += numel(op.shape);
    }
    if (is_sdpa_forward(op) && op.shape.size() == 4 && !op.inputs.empty()) {
      // output [B, H, S_q, hd]; the key length is that of the key input (slot 1)
      const std::int32_t key = op.inputs.size() > 1 ? op.inputs[1] : op.inputs[0];
      const auto& ks = plan.ops[static_cast<std::size_t>(key)].shape;
      const double kv_len =
          ks.size() == 4 ? static_cast<double>(ks[2]) : static_cast<double>(op.shape[2]);
      t.attention_flops_per_token +=
          12.0 * static_cast<double>(op.shape[1]) * static_cast<double>(op.shape[3]) * kv_len;
    }
  }
  t.model_flops_per_token = 6.0 * static_cast<double>(t.parameters) + t.attention_flops_per_token;
  t.tokens_per_s_per_gpu =
      static_cast<double>(t.tokens_per_step) / (step_time_us * 1e-6) / static_cast<double>(gpus);
  t.mfu = t.model_flops_per_token * t.tokens_per_s_per_gpu / peak_flop_per_s;
  return t;
}

}  // namespace dtplan::sim
