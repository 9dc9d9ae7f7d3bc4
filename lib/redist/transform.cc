#include "redist/transform.h"

#include <array>

namespace dtplan::redist {

using placement::Placement;

namespace {

constexpr std::array<std::string_view, kNumStepKinds> kNames = {
    "all_gather", "reduce_scatter", "all_reduce", "all_to_all", "local_chunk", "local_partition"};

std::string pair_text(const Placement& src, const Placement& dst) {
  return placement::to_long_string(src) + " to " + placement::to_long_string(dst);
}

}  // namespace

std::string_view step_kind_name(StepKind kind) { return kNames[static_cast<std::size_t>(kind)]; }

core::Result<StepKind> parse_step_kind(std::string_view text, std::string_view what) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<StepKind>(i);
  }
  return core::Error::bad_input(std::string(what) + ": unknown step collective '" +
                                std::string(text) +
                                "'; expected all_gather, reduce_scatter, all_reduce, all_to_all, "
                                "local_chunk or local_partition");
}

std::optional<collective::Collective> collective_of(StepKind kind) {
  switch (kind) {
    case StepKind::kAllGather:
      return collective::Collective::kAllGather;
    case StepKind::kReduceScatter:
      return collective::Collective::kReduceScatter;
    case StepKind::kAllReduce:
      return collective::Collective::kAllReduce;
    case StepKind::kAllToAll:
      return collective::Collective::kAllToAll;
    case StepKind::kLocalChunk:
    case StepKind::kLocalPartition:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<StepKind> comm_type_key(const Placement& src, const Placement& dst) {
  if (src.is_partial() && dst.is_replicate()) return StepKind::kAllReduce;
  if (src.is_partial() && dst.is_shard_like()) return StepKind::kReduceScatter;
  if (src.is_shard_like() && dst.is_replicate()) return StepKind::kAllGather;
  if (src.is_shard_like() && dst.is_shard_like()) return StepKind::kAllToAll;
  return std::nullopt;
}

core::Result<StepKind> transition_kind(const Placement& src, const Placement& dst) {
  if (src == dst) {
    return core::Error::bad_input("a step from " + pair_text(src, dst) +
                                  " changes nothing (source equals target)");
  }
  if (src.is_shard_like() && dst.is_partial()) {
    return core::Error::unsupported("redistribute from " + pair_text(src, dst) +
                                    " is not supported (Shard to Partial)");
  }
  if (src.is_partial() && dst.is_partial()) {
    return core::Error::unsupported("redistribute from " + pair_text(src, dst) +
                                    " is not supported (one partial type to another)");
  }
  if (auto key = comm_type_key(src, dst)) return *key;
  // src is Replicate here: the target is shard-like or Partial.
  return dst.is_partial() ? StepKind::kLocalPartition : StepKind::kLocalChunk;
}

std::string to_string(const Transform& t) {
  std::string out;
  for (std::size_t i = 0; i < t.mesh_dims.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(t.mesh_dims[i]);
  }
  out += ':' + placement::to_string(t.src) + "->" + placement::to_string(t.dst);
  if (t.flattened()) out += '@' + t.flattened_mesh;
  if (t.avg_scale > 1) out += '/' + std::to_string(t.avg_scale);
  return out;
}

}  // namespace dtplan::redist
