#include "plan/fused_matmul.h"

#include <algorithm>
#include <string>

#include "core/field_path.h"
#include "plan/plan.h"

namespace dtplan::plan {

std::string_view fused_kind_name(FusedKind kind) {
  return kind == FusedKind::kAllGatherMatmul ? "fused_all_gather_matmul"
                                             : "fused_matmul_reduce_scatter";
}

core::Result<FusedKind> parse_fused_kind(std::string_view text, std::string_view what) {
  for (FusedKind k : {FusedKind::kAllGatherMatmul, FusedKind::kMatmulReduceScatter}) {
    if (fused_kind_name(k) == text) return k;
  }
  return core::Error::bad_input(std::string(what) + ": unknown fused op '" + std::string(text) +
                                "'; expected fused_all_gather_matmul or "
                                "fused_matmul_reduce_scatter");
}

double chunk_us(std::span<const double> compute_us, std::int64_t chunks, double floor_us) {
  double m = 0;
  for (double us : compute_us) m += std::max(us / static_cast<double>(chunks), floor_us);
  return m;
}

double fused_matmul_us(double chunk_us, double copy_us, std::int64_t chunks) {
  return chunk_us + static_cast<double>(chunks - 1) * std::max(chunk_us, copy_us);
}

double peer_copy_us(std::int64_t bytes, const cost::HardwareProfile& profile) {
  const double gbyte_per_s = cost::intra_gbyte_per_s(profile.node);
  if (!(gbyte_per_s > 0)) return 0;
  return static_cast<double>(bytes) / (gbyte_per_s * 1e3);
}

void price_fused(FusedMatmul& fused, const Plan& plan, const cost::HardwareProfile& profile) {
  const redist::PlanStep& first =
      plan.redistributions[static_cast<std::size_t>(fused.collectives.front().redistribution)]
          .plan.steps[static_cast<std::size_t>(fused.collectives.front().step)];
  fused.chunks = first.group_size;
  fused.chunk_bytes = first.bytes;
  fused.copy_us = peer_copy_us(fused.chunk_bytes, profile);
  std::vector<double> compute;
  for (std::int32_t op : fused.matmuls) {
    compute.push_back(plan.ops[static_cast<std::size_t>(op)].compute_us);
  }
  const double m = chunk_us(compute, fused.chunks, profile.compute.launch_floor_us);
  fused.fused_us = fused_matmul_us(m, fused.copy_us, fused.chunks);
}

FusedIndex index_fused(const Plan& plan) {
  FusedIndex index;
  index.op_us.reserve(plan.ops.size());
  for (const PlanOp& op : plan.ops) index.op_us.push_back(op.compute_us);
  for (const FusedMatmul& f : plan.fused_matmuls) {
    double total = 0;
    for (std::int32_t op : f.matmuls) total += plan.ops[static_cast<std::size_t>(op)].compute_us;
    const auto n = static_cast<double>(f.matmuls.size());
    for (std::int32_t op : f.matmuls) {
      const double own = plan.ops[static_cast<std::size_t>(op)].compute_us;
      index.op_us[static_cast<std::size_t>(op)] =
          total > 0 ? f.fused_us * own / total : f.fused_us / n;
    }
    index.absorbed.insert(f.collectives.begin(), f.collectives.end());
  }
  return index;
}

}  // namespace dtplan::plan
