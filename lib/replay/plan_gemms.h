#pragma once
// The local matrix multiplications of a whole-model plan, as `dtplan replay --compute` times them
// with cuBLAS (backends.h, time_gemm) against the plan's roofline compute time
// (PlanOp::compute_us). The plan keeps each op's output shape and chosen placements and its
// producers' shapes; from those, one GEMM C[m,n] = A[m,k] x B[k,n] per op of these forms:
//   mm      A[m,k], B[k,n] -> [m,n]
//   addmm   bias, A[m,k], B[k,n] -> [m,n]
//   bmm     A[b,m,k], B[b,k,n] -> [b,m,n]        timed as one GEMM with m' = b m (same FLOPs)
//   einsum  A[..., k], B[k,n] -> [..., n]        (a linear layer "abk,kn->abn"; m = prod(...))
// Local sizes on the busiest rank: every output dim divided by the mesh dims that shard it
// (torch.chunk's ceil, nested shards in turn), k divided by the mesh dims whose output placement
// is Partial (a Partial output is what a sharded contraction leaves). Matmul-family ops of other
// forms (an einsum that is not a linear layer) are skipped and counted. Ops with equal
// (m, n, k, dtype) are one job, counted; the prediction is that of the first.
//
//   mm x[64,32] S(0),R @ w[32,16] R,R on (2,2): m 32, n 16, k 32

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "replay/replay_source.h"

namespace dtplan::replay {

struct GemmJob {
  std::int32_t op = 0;  // the first op with this GEMM
  std::string name;     // its name
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  core::DType dtype = core::DType::kBF16;
  double predicted_us = 0;  // the op's compute_us
  std::int64_t count = 0;
  bool operator==(const GemmJob&) const = default;
};

struct PlanGemms {
  std::vector<GemmJob> jobs;  // in op order of first appearance
  std::int64_t skipped = 0;   // matmul-family ops of another form
  bool operator==(const PlanGemms&) const = default;
};

// The GEMMs of `source` (none for a redistribute plan). @pre the source's ops passed
// plan::check_plan (producers earlier, one placement per mesh dim).
PlanGemms plan_gemms(const ReplaySource& source);

}  // namespace dtplan::replay
