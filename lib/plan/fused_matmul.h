#pragma once
// FusedMatmul: a tp collective and the matmuls inductor's micro-pipeline TP fuses it with
// (docs/reference/torchtitan.md §7, "Async TP"; PyTorch
// torch/_inductor/fx_passes/micro_pipeline_tp.py and torch/distributed/_symmetric_memory): the
// collective no longer runs as an NCCL kernel, its t - 1 remote shards are copied peer to peer over
// NVLink (symmetric memory, copy engines, two alternating streams) while the matmul runs in t
// chunks, one per shard.
//   kAllGatherMatmul      fused_all_gather_matmul: the local shard's chunk first, then each
//                         remote shard's chunk as its copy lands;
//   kMatmulReduceScatter  fused_matmul_reduce_scatter: the mirror image, each destination's
//                         partial chunk computed, then pushed while the next one runs.
// Either way (m: one chunk of all the fused matmuls, c: one shard's copy)
//   fused_us = m + (t - 1) x max(m, c)
// i.e. max(t chunks, the first chunk + t - 1 copies): the copies hide behind the chunks, or the
// chunks behind the copies, and one chunk stays exposed. Each chunk is its own kernel:
// m = Σ_i max(compute_us_i / t, launch floor). c = shard bytes / the GPU's NVLink bandwidth
// (cost::intra_gbyte_per_s: links x per-link rate of the hardware profile). The matmuls run
// fused_us between them in proportion to their compute_us (index_fused).
//
//   FusedMatmul{.kind = kAllGatherMatmul, .matmuls = {45, 49, 53}, .collectives = {{3, 0}},
//               .chunks = 2, .chunk_bytes = 2048, .copy_us = 0.0055, .fused_us = 42}

#include <cstdint>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"

namespace dtplan::plan {

struct Plan;

enum class FusedKind : std::uint8_t { kAllGatherMatmul, kMatmulReduceScatter };

// "fused_all_gather_matmul", "fused_matmul_reduce_scatter" (the inductor op names).
std::string_view fused_kind_name(FusedKind kind);
core::Result<FusedKind> parse_fused_kind(std::string_view text, std::string_view what);

// A redistribution step: (index in plan.redistributions, index in its steps).
struct StepRef {
  std::int32_t redistribution = 0;
  std::int32_t step = 0;
  auto operator<=>(const StepRef&) const = default;
};

struct FusedMatmul {
  FusedKind kind = FusedKind::kAllGatherMatmul;
  std::vector<std::int32_t> matmuls;  // the fused matmul ops, ascending
  // The tp collectives it replaces, ascending: an all-gather's copies on every slot that reads
  // the gathered tensor (the fused op also returns the gathered tensor), or the reduce-scatter.
  std::vector<StepRef> collectives;
  std::int64_t chunks = 1;       // t: the tp degree
  std::int64_t chunk_bytes = 0;  // one shard, what one peer copy moves (the step's bytes)
  double copy_us = 0;            // one peer copy
  double fused_us = 0;           // one run of the whole fused op, formula above
  bool operator==(const FusedMatmul&) const = default;
};

// One chunk of the matmuls: Σ max(compute_us / chunks, floor_us). @pre chunks >= 1.
double chunk_us(std::span<const double> compute_us, std::int64_t chunks, double floor_us);

// The fused op's time from one chunk and one copy: m + (t - 1) x max(m, c).
// Example: m = 21, c = 30, t = 2: 51; c = 5: 42.
double fused_matmul_us(double chunk_us, double copy_us, std::int64_t chunks);

// One peer copy of `bytes` over NVLink: bytes / (intra_gbyte_per_s(node) x 1e3) us.
// Example (h100-dgx, 18 x 20.6 GB/s): 370800 bytes -> 1 us.
double peer_copy_us(std::int64_t bytes, const cost::HardwareProfile& profile);

// Prices `fused` from the plan's ops and steps: chunks, chunk_bytes (from the first
// collective's bytes), copy_us and fused_us. @pre its ops and steps exist in `plan`.
void price_fused(FusedMatmul& fused, const Plan& plan, const cost::HardwareProfile& profile);

// What the step simulation and the summaries read: each op's time for one run (compute_us,
// or its share of its fused op's fused_us) and the steps that fused ops absorb.
struct FusedIndex {
  std::vector<double> op_us;   // per op
  std::set<StepRef> absorbed;  // steps that do not run as collectives
  [[nodiscard]] bool absorbs(std::size_t redistribution, std::size_t step) const {
    return absorbed.contains(
        {static_cast<std::int32_t>(redistribution), static_cast<std::int32_t>(step)});
  }
};

// @pre plan.fused_matmuls reference valid ops and steps (check_plan).
FusedIndex index_fused(const Plan& plan);

}  // namespace dtplan::plan
