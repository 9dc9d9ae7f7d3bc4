#include "strategy/torchtitan_pins.h"

#include <optional>

namespace dtplan::strategy {

namespace {

using placement::Placement;

constexpr std::string_view kSource = "--parallelize torchtitan";

// Where each role sits on the mesh (nullopt: absent) and the dims' sizes.
struct Roles {
  std::optional<std::size_t> replicate, shard, tp;
  std::span<const std::int64_t> sizes;
  std::size_t ndim = 0;

  [[nodiscard]] std::int64_t tp_size() const { return tp ? sizes[*tp] : 1; }
};

// The placements of a parameter that TP lays out as `tp`: FSDP2's Shard(0) on dp_shard, strided
// where tp shards dim 0 too and splits first (dp_shard before tp).
Placements parameter(const Roles& r, Placement tp) {
  Placements out(r.ndim, Placement::replicate());
  if (r.tp) out[*r.tp] = tp;
  if (r.shard) {
    const bool strided = r.tp && tp == Placement::shard(0) && *r.shard < *r.tp;
    out[*r.shard] = strided ? Placement::strided_shard(0, r.tp_size()) : Placement::shard(0);
  }
  return out;
}

// The placements of an activation: batch on the data-parallel dims, `tp` on tp.
Placements activation(const Roles& r, Placement tp) {
  Placements out(r.ndim, Placement::replicate());
  if (r.replicate) out[*r.replicate] = Placement::shard(0);
  if (r.shard) out[*r.shard] = Placement::shard(0);
  if (r.tp) out[*r.tp] = tp;
  return out;
}

PinRule rule(std::string name, std::string pattern, Placements placements) {
  return {std::move(name), std::move(pattern), PinKind::kPlacements, std::move(placements), 0};
}

core::Result<Roles> roles_of(const std::vector<std::string>& names,
                             std::span<const std::int64_t> sizes) {
  Roles r;
  r.sizes = sizes;
  r.ndim = names.size();
  for (std::size_t d = 0; d < names.size(); ++d) {
    auto role = parse_mesh_role(names[d]);
    if (!role.ok()) return role.error().with_context(kSource);
    std::optional<std::size_t>* slot = nullptr;
    switch (*role) {
      case MeshRole::kDpReplicate:
        slot = &r.replicate;
        break;
      case MeshRole::kDpShard:
        slot = &r.shard;
        break;
      case MeshRole::kTp:
        slot = &r.tp;
        break;
      case MeshRole::kCp:
        return core::Error::unsupported(std::string(kSource) + ": mesh dim '" + names[d] +
                                        "': context parallel (cp) is not supported yet");
    }
    if (slot->has_value()) {
      return core::Error::bad_input(std::string(kSource) + ": mesh dim '" + names[d] +
                                    "' repeats the role " + std::string(mesh_role_name(*role)));
    }
    *slot = d;
  }
  return r;
}

}  // namespace

std::string_view mesh_role_name(MeshRole role) {
  switch (role) {
    case MeshRole::kDpReplicate:
      return "dp_replicate";
    case MeshRole::kDpShard:
      return "dp_shard";
    case MeshRole::kCp:
      return "cp";
    case MeshRole::kTp:
      break;
  }
  return "tp";
}

core::Result<MeshRole> parse_mesh_role(std::string_view name) {
  if (name == "dp_replicate") return MeshRole::kDpReplicate;
  if (name == "dp_shard" || name == "dp") return MeshRole::kDpShard;
  if (name == "cp") return MeshRole::kCp;
  if (name == "tp") return MeshRole::kTp;
  return core::Error::bad_input("mesh dim '" + std::string(name) +
                                "' has no torchtitan role (dp_replicate, dp_shard or dp, cp, tp)");
}

core::Result<PinSet> torchtitan_pins(const std::vector<std::string>& names,
                                     std::span<const std::int64_t> sizes,
                                     const graph::Llama3Config& config) {
  DTPLAN_TRY(const Roles r, roles_of(names, sizes));
  const std::int64_t t = r.tp_size();
  if (config.n_heads % t != 0 || config.n_kv_heads % t != 0) {
    return core::Error::bad_input(std::string(kSource) + ": rule 'attention.colwise': tp size " +
                                  std::to_string(t) + " does not divide the heads (n_heads " +
                                  std::to_string(config.n_heads) + ", n_kv_heads " +
                                  std::to_string(config.n_kv_heads) + ")");
  }
  const std::string layer = "layers\\.\\d+\\.";
  const Placement s0 = Placement::shard(0);
  PinSet out;
  out.source = std::string(kSource);
  auto& rules = out.rules;
  // Parameters: FSDP2 on dp_shard, TP styles on tp, Replicate on dp_replicate.
  rules.push_back(
      rule("attention.colwise", layer + "attention\\.(wq|wk|wv)\\.weight", parameter(r, s0)));
  rules.push_back(rule("attention.rowwise", layer + "attention\\.wo\\.weight",
                       parameter(r, Placement::shard(1))));
  rules.push_back(
      rule("feed_forward.colwise", layer + "feed_forward\\.(w1|w3)\\.weight", parameter(r, s0)));
  rules.push_back(rule("feed_forward.rowwise", layer + "feed_forward\\.w2\\.weight",
                       parameter(r, Placement::shard(1))));
  rules.push_back(rule("norms", "(" + layer + "(attention_norm|ffn_norm)|norm)\\.weight",
                       parameter(r, Placement::replicate())));
  rules.push_back(rule("tok_embeddings", "tok_embeddings\\.weight", parameter(r, s0)));
  rules.push_back(rule("output", "output\\.weight", parameter(r, s0)));
  // Activations: batch-sharded on the data-parallel dims; with tp, sequence parallel between
  // the blocks, colwise outputs sharded on their last dim, rowwise outputs partial.
  // The data loader shards the batch over every data-parallel dim (torchtitan's `batch` mesh).
  rules.push_back(rule("tokens", "tokens", activation(r, Placement::replicate())));
  rules.push_back(rule("residual_stream", layer + "(attention|ffn)_residual",
                       activation(r, Placement::shard(1))));
  // Its gradient in the backward: sequence parallel too (the mirror of the forward's layouts).
  rules.push_back(rule("residual_stream_grads",
                       layer + "bwd\\.(attention|ffn)_residual\\.grad(\\.alias)?",
                       activation(r, Placement::shard(1))));
  if (r.tp) {
    rules.push_back(rule("sequence_parallel_norms",
                         "(" + layer + "(attention_norm|ffn_norm)|norm)\\.to_bf16",
                         activation(r, Placement::shard(1))));
    rules.push_back(rule("colwise_outputs",
                         layer + "(attention\\.(wq|wk|wv)|feed_forward\\.(w1|w3))\\.einsum",
                         activation(r, Placement::shard(2))));
    rules.push_back(rule("rowwise_outputs", layer + "(attention\\.wo|feed_forward\\.w2)\\.einsum",
                         activation(r, Placement::partial())));
    // The logits, the model output (its alias) and its tangent: vocab-sharded.
    rules.push_back(rule("loss_parallel", "output\\.einsum(\\.alias)?|logits\\.tangent",
                         activation(r, Placement::shard(2))));
  }
  return out;
}

}  // namespace dtplan::strategy
