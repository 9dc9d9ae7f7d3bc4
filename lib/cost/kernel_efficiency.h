#pragma once
// Kernel efficiency tables of a hardware profile (`compute` section; docs/model.md, compute
// model): the fraction of the dense tensor-core peak a kernel reaches as a function of its size,
// instead of one flat factor.
//   - GEMMs (mm, bmm, two-operand einsum): by the GEMM's FLOPs 2mnk (a small GEMM fills few SMs
//     for few waves and pays its prologue and epilogue on little work);
//   - fused attention (SDPA) forward and backward: by the key/value length, for the kernel the
//     profile names (FlashAttention-2, FlashAttention-3 or cuDNN);
// Between two points the efficiency is interpolated linearly in log2 of the key; outside the
// table it is the nearest end point (clamped). All tensor-core efficiencies are then multiplied by
// tensor_throughput_factor (a sustained-clock derating, e.g. a power cap).
//
//   gemm = {{2^31, 0.18}, {2^34, 0.56}}:  at 2^32.5 FLOPs -> 0.18 + 0.5 x (0.56 - 0.18) = 0.37

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace dtplan::cost {

struct EfficiencyPoint {
  double at = 0;          // the key: FLOPs (GEMM) or key/value length (attention); > 0
  double efficiency = 0;  // fraction of the dense peak, in (0, 1]
  bool operator==(const EfficiencyPoint&) const = default;
};

// The fused attention kernel whose measurements an attention table holds.
enum class AttentionKernel : std::uint8_t { kFlash2, kFlash3, kCudnn };

// "flash2", "flash3", "cudnn".
std::string_view attention_kernel_name(AttentionKernel kernel);
core::Result<AttentionKernel> parse_attention_kernel(std::string_view text, std::string_view what);

struct AttentionEfficiency {
  AttentionKernel kernel = AttentionKernel::kFlash2;
  std::vector<EfficiencyPoint> forward;   // by key/value length
  std::vector<EfficiencyPoint> backward;  // by key/value length
  bool operator==(const AttentionEfficiency&) const = default;
};

// The efficiency at `key`: log2-linear between points, clamped outside.
// @pre points non-empty, keys strictly increasing and > 0 (check_efficiency_table), key > 0.
double efficiency_at(std::span<const EfficiencyPoint> points, double key);

// Keys strictly increasing and > 0, efficiencies in (0, 1], at least one point. Errors
// (kBadInput) name `where` and the point ("compute.gemm_efficiency[2]: ...").
core::Status check_efficiency_table(std::span<const EfficiencyPoint> points,
                                    std::string_view where);

}  // namespace dtplan::cost
