#include "strategy/compute_cost.h"

#include <algorithm>
#include <array>

#include "core/checked.h"
#include "cost/compute_work.h"
#include "cost/roofline.h"
#include "strategy/einsum_labels.h"
#include "strategy/float8_cost.h"

namespace dtplan::strategy {
namespace {

using K = graph::OpKind;

// Adds the bytes of every tensor of `shapes` (dtypes from `metas`) that `internal` does not
// mark as staying inside a fused kernel.
template <class Internal>
core::Result<std::int64_t> bytes_of(std::span<const graph::Shape> shapes,
                                    std::span<const graph::TensorMeta> metas, std::int64_t total,
                                    Internal internal) {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (internal(i)) continue;
    DTPLAN_TRY(std::int64_t n, core::checked_product(shapes[i], "local tensor numel"));
    DTPLAN_TRY(std::int64_t b,
               core::checked_mul(n, core::dtype_bytes(metas[i].dtype), "local tensor bytes"));
    DTPLAN_TRY(total, core::checked_add(total, b, "op bytes"));
  }
  return total;
}

// FLOPs of an einsum on local shapes: each label takes its largest local size (a broadcast
// operand dim counts once), then compute_work's formula; three or more operands are priced as
// the chain of pairwise contractions over all labels (an upper bound).
core::Result<double> einsum_flops(const graph::Node& node, std::span<const graph::Shape> local,
                                  core::DType dtype) {
  DTPLAN_TRY(std::string equation, node.attrs.get_string("equation"));
  std::vector<const graph::Shape*> ptrs;
  for (const graph::Shape& s : local) ptrs.push_back(&s);
  DTPLAN_TRY(EinsumLabels labels, expand_einsum(equation, ptrs, "einsum"));
  std::array<std::int64_t, 128> size{};
  double all = 1;
  for (std::size_t i = 0; i < labels.operands.size(); ++i) {
    for (std::size_t q = 0; q < labels.operands[i].size(); ++q) {
      auto& s = size[static_cast<unsigned char>(labels.operands[i][q])];
      s = std::max(s, local[i][q]);
    }
  }
  if (labels.operands.size() > 2) {
    for (std::int64_t s : size) all *= s > 0 ? static_cast<double>(s) : 1.0;
    return 2.0 * static_cast<double>(labels.operands.size() - 1) * all;
  }
  std::vector<std::vector<std::int64_t>> shapes;
  for (const std::string& term : labels.operands) {
    std::vector<std::int64_t>& s = shapes.emplace_back();
    for (char c : term) s.push_back(size[static_cast<unsigned char>(c)]);
  }
  DTPLAN_TRY(cost::Work w,
             cost::einsum_work(labels.equation(), shapes, dtype, cost::Pass::kForward));
  return w.flops;
}

// The FLOPs an op does and the kernel whose efficiency prices them.
struct OpFlops {
  double flops = 0;
  cost::Kernel kernel;
};

core::Result<OpFlops> flops_of(const graph::Node& node, Rule rule, std::span<const graph::Shape> in,
                               core::DType dtype, const cost::HardwareProfile& profile,
                               const EnumerateOptions& options) {
  const auto fwd = cost::Pass::kForward;
  const cost::Kernel gemm{cost::KernelKind::kGemm};
  if (rule == Rule::kMatmul) {
    const std::size_t a = node.op == K::kAddmm ? 1 : 0;
    const graph::Shape &x = in[a], &y = in[a + 1];
    if (node.op == K::kBmm) {
      DTPLAN_TRY(cost::Work w, cost::bmm_work(x[0], x[1], y[2], x[2], dtype, fwd));
      return OpFlops{w.flops, gemm};
    }
    DTPLAN_TRY(cost::Work w, cost::matmul_work(x[0], y[1], x[1], dtype, fwd));
    return OpFlops{w.flops, gemm};
  }
  if (rule == Rule::kEinsum) {
    DTPLAN_TRY(double flops, einsum_flops(node, in, dtype));
    const bool contraction = node.inputs.size() >= 2;
    return OpFlops{flops, contraction ? gemm : cost::Kernel{}};
  }
  if (rule == Rule::kAttention) {
    const bool forward = graph::is_sdpa_forward(node.op);
    const std::size_t qs = forward ? 0 : 1;
    const graph::Shape &q = in[qs], &k = in[qs + 1], &v = in[qs + 2];
    const cost::AttentionShape shape{q[0], q[1], q[2], k[2], q[3], v[3]};
    DTPLAN_TRY(bool causal, node.attrs.get_bool_or("is_causal", false));
    // A fused kernel skips the masked pairs, and its efficiency table counts only the pairs it
    // computes: with a table, causal attention is always priced on the causal pairs.
    const bool skip_masked = options.causal_attention_flops || profile.compute.attention;
    const auto mask =
        causal && skip_masked ? cost::AttentionMask::kCausal : cost::AttentionMask::kNone;
    const cost::Pass pass = forward ? fwd : cost::Pass::kBackward;
    DTPLAN_TRY(cost::Work w, cost::sdpa_work(shape, dtype, mask, pass));
    if (mask == cost::AttentionMask::kCausal && q[2] < k[2]) {
      // Ring attention (a context-parallel sequence row: q holds s/c rows, K/V all s): head-tail
      // load balancing gives each rank 1/c of the causal work (docs/reference/torchtitan.md §4),
      // not the top-left triangle of its q rows.
      cost::AttentionShape whole = shape;
      whole.q_len = k[2];
      DTPLAN_TRY(cost::Work all, cost::sdpa_work(whole, dtype, mask, pass));
      w.flops = all.flops * static_cast<double>(q[2]) / static_cast<double>(k[2]);
    }
    const auto kind =
        forward ? cost::KernelKind::kAttentionForward : cost::KernelKind::kAttentionBackward;
    return OpFlops{w.flops, cost::Kernel{kind, k[2]}};
  }
  return OpFlops{};
}

}  // namespace

bool is_free_op(const graph::Node& node, Rule rule) {
  switch (rule) {
    case Rule::kLeaf:
    case Rule::kAlias:
    case Rule::kView:
    case Rule::kOutput:
      return true;
    case Rule::kTuple:
      return node.op != K::kCat;
    default:
      return false;
  }
}

core::Result<double> compute_cost_us(const graph::Node& node, Rule rule,
                                     std::span<const graph::TensorMeta> inputs,
                                     std::span<const graph::Shape> local_inputs,
                                     std::span<const graph::Shape> local_outputs,
                                     const cost::HardwareProfile& profile,
                                     const EnumerateOptions& options,
                                     const graph::FusedOp& fusion) {
  if (is_free_op(node, rule)) return 0.0;
  // A float8 GEMM (float8_cost.h) runs at the fp8 peak on fp8 operands, after their casts.
  const bool float8 = is_float8_gemm(node);
  std::vector<graph::TensorMeta> fp8_operands;
  if (float8) {
    fp8_operands.assign(inputs.begin(), inputs.end());
    for (graph::TensorMeta& m : fp8_operands) m.dtype = core::DType::kF8E4M3;
  }
  const std::span<const graph::TensorMeta> operands =
      float8 ? std::span<const graph::TensorMeta>(fp8_operands) : inputs;
  const core::DType dtype = float8                  ? core::DType::kF8E4M3
                            : !inputs.empty()       ? inputs[0].dtype
                            : !node.outputs.empty() ? node.outputs[0].dtype
                                                    : core::DType::kF32;
  DTPLAN_TRY(OpFlops f, flops_of(node, rule, local_inputs, dtype, profile, options));
  // The roofline with the slots and outputs `internal` marks left out of the traffic.
  auto priced = [&](const graph::FusedOp& fused) -> core::Result<cost::ComputeCost> {
    DTPLAN_TRY(std::int64_t bytes, bytes_of(local_inputs, operands, 0, [&](std::size_t i) {
                 return fused.input_internal(i);
               }));
    DTPLAN_TRY(bytes, bytes_of(local_outputs, node.outputs, bytes,
                               [&](std::size_t o) { return fused.output_internal(o); }));
    return cost::kernel_roofline(cost::Work{f.flops, bytes}, dtype, f.kernel, profile);
  };
  DTPLAN_TRY(cost::ComputeCost eager, priced(graph::FusedOp{}));
  if (float8) {
    DTPLAN_TRY(double cast_us, float8_cast_us(inputs, local_inputs, profile, options.execution));
    return eager.time_us + cast_us;
  }
  if (fusion.region < 0) return eager.time_us;
  DTPLAN_TRY(cost::ComputeCost c, priced(fusion));
  const double fused = fusion.launches ? c.time_us : std::max(c.compute_us, c.memory_us);
  return eager.time_us - kCompiledFusionShare * (eager.time_us - fused);
}

}  // namespace dtplan::strategy
