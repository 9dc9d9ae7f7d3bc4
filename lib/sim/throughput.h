#pragma once
// Training throughput of a simulated step, as torchtitan reports it (train.py and its
// get_num_flop_per_token / get_peak_flops helpers):
//   tokens_per_s_per_gpu = tokens per step / step time / GPUs (every rank of the mesh);
//   model FLOPs per token = 6 x N + 12 x sum over attention layers of (H x hd x S), with N the
//     parameters except the token embedding and S the key length (the dense count, causal
//     masking ignored, recomputation not counted);
//   mfu = FLOPs per token x tokens_per_s_per_gpu / the dense bf16 peak of one GPU.
// Everything is read from the plan: parameters are the ops with role kParam (global shapes),
// the embedding's weight is the parameter its "embedding" op reads (through single-input ops
// such as a cast), tokens are the elements of the "input" op that feeds the embedding, and each
// forward SDPA op contributes its output's heads x head_dim x the key length of its input.
//
//   LLaMA3-8B, B=16, S=8192 (7.50e9 non-embedding parameters, 32 layers, 32 x 128):
//   FLOPs per token = 6 x 7.50e9 + 12 x 32 x 4096 x 8192 = 5.79e10

#include <cstdint>

#include "core/result.h"
#include "plan/plan.h"

namespace dtplan::sim {

struct Throughput {
  // global batch x sequence: the token input's (one microbatch's) x plan.training.grad_accum
  std::int64_t tokens_per_step = 0;
  std::int64_t parameters = 0;           // N: every parameter but the token embedding
  double attention_flops_per_token = 0;  // 12 x sum of H x hd x S
  double model_flops_per_token = 0;      // 6 N + attention
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;  // a fraction (0.34, not 34)
  bool operator==(const Throughput&) const = default;
};

// The throughput of `plan` with one step taking step_time_us on `gpus` GPUs whose dense bf16
// peak is peak_flop_per_s.
// @pre step_time_us > 0, gpus > 0, peak_flop_per_s > 0.
// @post error (kUnsupported) when the plan has no token input feeding an embedding (not a
//   language model: no tokens to count).
core::Result<Throughput> plan_throughput(const plan::Plan& plan, double step_time_us,
                                         std::int64_t gpus, double peak_flop_per_s);

}  // namespace dtplan::sim
