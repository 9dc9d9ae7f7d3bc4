#include "redist/step_pricer.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/hash.h"

namespace dtplan::redist {

namespace {

constexpr std::int64_t kMaxBytes = std::numeric_limits<std::int64_t>::max();

std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  std::int64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? kMaxBytes : p;
}

}  // namespace

StepQuery query_from_lengths(StepKind kind, std::uint32_t mesh_dims, int flattened,
                             std::int64_t group_size, std::span<const std::int64_t> before,
                             std::int32_t dst_dim, std::int64_t dst_after, std::int64_t item_bytes,
                             double ideal_bytes) {
  std::int64_t local = item_bytes;
  std::int64_t written = item_bytes;  // the local tensor with dst_dim cut to its new pieces
  for (std::size_t t = 0; t < before.size(); ++t) {
    local = sat_mul(local, before[t]);
    written = sat_mul(written, static_cast<std::int32_t>(t) == dst_dim ? dst_after : before[t]);
  }
  StepQuery q{kind, mesh_dims, flattened, 0, local, ideal_bytes, 1, false};
  switch (kind) {
    case StepKind::kAllGather:
    case StepKind::kAllReduce:
    case StepKind::kLocalPartition:
      q.bytes = local;
      break;
    case StepKind::kReduceScatter:
    case StepKind::kLocalChunk:
      q.bytes = written;
      break;
    case StepKind::kAllToAll:  // the source dim keeps its local length in the send buffer
      q.bytes = sat_mul(written, group_size);
      break;
  }
  return q;
}

namespace {

// DTensor's byte count of a state: global bytes / product of its shard-like dims' sizes.
double ideal_bytes(std::int64_t global_bytes, const RedistState& state,
                   std::span<const std::int64_t> sizes) {
  double shards = 1;
  for (std::size_t m = 0; m < state.placements.size(); ++m) {
    if (state.placements[m].is_shard_like()) shards *= static_cast<double>(sizes[m]);
  }
  return static_cast<double>(global_bytes) / shards;
}

}  // namespace

core::Result<StepQuery> make_query(const MeshContext& mesh, std::span<const std::int64_t> shape,
                                   core::DType dtype, const RedistState& before,
                                   const Transform& t) {
  std::uint32_t mask = 0;
  for (std::int32_t m : t.mesh_dims) {
    if (m < 0 || m >= mesh.ndim()) {
      return core::Error::bad_input("step " + to_string(t) + ": mesh dim " + std::to_string(m) +
                                    " does not exist");
    }
    mask |= std::uint32_t{1} << m;
  }
  if (mask == 0) return core::Error::bad_input("step " + to_string(t) + ": no mesh dim");
  int flat = -1;
  if (t.flattened()) {
    flat = mesh.flattened_index(t.flattened_mesh);
    if (flat < 0 || !mesh.flattens(flat, mask)) {
      return core::Error::bad_input("step " + to_string(t) + ": the mesh has no flattened mesh '" +
                                    t.flattened_mesh + "' over these mesh dims");
    }
  }
  const std::span<const std::int64_t> sizes = mesh.sizes();
  thread_local std::vector<std::int64_t> lengths;  // no allocation once grown
  max_lengths(shape, before, sizes, lengths);
  const std::int32_t dst_dim = t.dst.is_shard_like() ? t.dst.dim() : -1;
  std::int64_t after = 0;
  if (dst_dim >= 0) {
    if (static_cast<std::size_t>(dst_dim) >= shape.size()) {
      return core::Error::bad_input("step " + to_string(t) + ": tensor dim " +
                                    std::to_string(dst_dim) + " does not exist");
    }
    thread_local std::vector<Split> chain;
    chain_into(before, dst_dim, sizes, 0, chain);
    for (std::int32_t m : t.mesh_dims) chain.push_back({sizes[static_cast<std::size_t>(m)], t.dst});
    after = chain_max_length(shape[static_cast<std::size_t>(dst_dim)], chain);
  }
  std::int64_t global = core::dtype_bytes(dtype);
  for (std::int64_t s : shape) global *= s;  // TensorSpec checked that it fits
  StepQuery q =
      query_from_lengths(t.kind, mask, flat, mesh.groups(mask, flat).size, lengths, dst_dim, after,
                         core::dtype_bytes(dtype), ideal_bytes(global, before, sizes));
  q.avg_scale = t.avg_scale;
  q.divides = t.kind == StepKind::kLocalPartition && t.dst == placement::Placement::partial();
  return q;
}

std::uint64_t StepPricer::Hash::operator()(const StepQuery& q) const {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &q.ideal_bytes, sizeof bits);
  // One finalising mix over odd-multiplier products of the fields (equal keys compare in full).
  const std::uint64_t tag = static_cast<std::uint64_t>(q.kind) | (std::uint64_t{q.mesh_dims} << 8) |
                            (static_cast<std::uint64_t>(q.flattened + 1) << 40) |
                            (std::uint64_t{q.divides} << 63);
  return core::mix64(tag ^ static_cast<std::uint64_t>(q.bytes) * core::kGoldenGamma ^
                     static_cast<std::uint64_t>(q.local_bytes) * 0xc2b2ae3d27d4eb4fULL ^
                     bits * 0x165667b19e3779f9ULL ^
                     static_cast<std::uint64_t>(q.avg_scale) * 0x27d4eb2f165667c5ULL);
}

core::Result<PricedQuery> StepPricer::price(const StepQuery& query) {
  if (PricedQuery* hit = memo_.find(query)) return *hit;
  DTPLAN_TRY(StepPrice p, model_.price(mesh_, query));
  PricedQuery out{to_ps(p.cost_us), p};
  out.price.cost_us = static_cast<double>(out.cost_ps) / 1e6;
  memo_.insert(query, out);
  return out;
}

std::int64_t to_ps(double us) {
  if (!(us > 0)) return 0;
  const double ps = std::round(us * 1e6);
  return ps >= static_cast<double>(kMaxCostPs) ? kMaxCostPs : static_cast<std::int64_t>(ps);
}

}  // namespace dtplan::redist
