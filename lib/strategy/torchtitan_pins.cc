#include "strategy/torchtitan_pins.h"

#include <optional>

namespace dtplan::strategy {

namespace {

using placement::Placement;

constexpr std::string_view kSource = "--parallelize torchtitan";

// Where each role sits on the mesh (nullopt: absent) and the dims' sizes.
struct Roles {
  std::optional<std::size_t> replicate, shard, cp, tp;
  std::span<const std::int64_t> sizes;
  std::size_t ndim = 0;

  [[nodiscard]] std::int64_t cp_size() const { return cp ? sizes[*cp] : 1; }
  [[nodiscard]] std::int64_t tp_size() const { return tp ? sizes[*tp] : 1; }
};

// The placements of a parameter that TP lays out as `tp`: FSDP2's Shard(0) over dp_shard x cp
// (docs/reference/torchtitan.md §3 "FSDP x CP": the fsdp mesh flattens both), strided where tp
// shards dim 0 too and splits first (an FSDP dim before tp).
Placements parameter(const Roles& r, Placement tp) {
  Placements out(r.ndim, Placement::replicate());
  if (r.tp) out[*r.tp] = tp;
  for (const std::optional<std::size_t>& d : {r.shard, r.cp}) {
    if (!d) continue;
    const bool strided = r.tp && tp == Placement::shard(0) && *d < *r.tp;
    out[*d] = strided ? Placement::strided_shard(0, r.tp_size()) : Placement::shard(0);
  }
  return out;
}

// The placements of an activation [B,S,...]: batch on the data-parallel dims, sequence on cp
// (docs/reference/torchtitan.md §4; with tp's sequence parallel S(1) too, cp splits first), `tp` on
// tp.
Placements activation(const Roles& r, Placement tp) {
  Placements out(r.ndim, Placement::replicate());
  if (r.replicate) out[*r.replicate] = Placement::shard(0);
  if (r.shard) out[*r.shard] = Placement::shard(0);
  if (r.cp) out[*r.cp] = Placement::shard(1);
  if (r.tp) out[*r.tp] = tp;
  return out;
}

PinRule rule(std::string name, std::string pattern, Placements placements) {
  return {std::move(name), std::move(pattern), PinKind::kPlacements, std::move(placements), 0};
}

const std::string kLayer = "layers\\.\\d+\\.";
const std::string kColwise = "(attention\\.(wq|wk|wv)|feed_forward\\.(w1|w3))";
const std::string kRowwise = "(attention\\.wo|feed_forward\\.w2)";

// A gradient summed over the batch and the sequence: Partial on the data-parallel dims and on
// cp (FSDP's reduce-scatter over dp_shard x cp sums the sequence shards' contributions), `tp` on
// tp.
Placements gradient(const Roles& r, Placement tp) {
  Placements out(r.ndim, Placement::replicate());
  if (r.replicate) out[*r.replicate] = Placement::partial();
  if (r.shard) out[*r.shard] = Placement::partial();
  if (r.cp) out[*r.cp] = Placement::partial();
  if (r.tp) out[*r.tp] = tp;
  return out;
}

// Parameters: FSDP2 on dp_shard, TP styles on tp, Replicate on dp_replicate.
void add_parameter_rules(const Roles& r, std::vector<PinRule>& rules) {
  const Placement s0 = Placement::shard(0);
  const Placement s1 = Placement::shard(1);
  rules.push_back(
      rule("attention.colwise", kLayer + "attention\\.(wq|wk|wv)\\.weight", parameter(r, s0)));
  rules.push_back(rule("attention.rowwise", kLayer + "attention\\.wo\\.weight", parameter(r, s1)));
  rules.push_back(
      rule("feed_forward.colwise", kLayer + "feed_forward\\.(w1|w3)\\.weight", parameter(r, s0)));
  rules.push_back(
      rule("feed_forward.rowwise", kLayer + "feed_forward\\.w2\\.weight", parameter(r, s1)));
  rules.push_back(rule("norms", "(" + kLayer + "(attention_norm|ffn_norm)|norm)\\.weight",
                       parameter(r, Placement::replicate())));
  rules.push_back(rule("tok_embeddings", "tok_embeddings\\.weight", parameter(r, s0)));
  rules.push_back(rule("output", "output\\.weight", parameter(r, s0)));
}

// The forward: batch-sharded on the data-parallel dims (FSDP all-gathers a weight before its
// op uses it, so every linear and the embedding compute on whole TP-local weights); with tp,
// sequence parallel between the blocks, colwise outputs sharded on their last dim, rowwise
// outputs partial until their reduce-scatter, the embedding's output partial (vocab-parallel).
void add_forward_rules(const Roles& r, std::vector<PinRule>& rules) {
  // The data loader shards the batch over every data-parallel dim (torchtitan's `batch` mesh).
  rules.push_back(rule("tokens", "tokens", activation(r, Placement::replicate())));
  rules.push_back(
      rule("embedding", "tok_embeddings\\.embedding", activation(r, Placement::partial())));
  // The rotary table [seq, head_dim/2] is a plain buffer: whole on every rank, but each cp rank
  // reads the rows of its own positions (docs/reference/torchtitan.md §4), so split on dim 0.
  Placements rope(r.ndim, Placement::replicate());
  if (r.cp) rope[*r.cp] = Placement::shard(0);
  rules.push_back(rule("rope_table", "freqs_cis(\\.alias)?", std::move(rope)));
  rules.push_back(rule("residual_stream", kLayer + "(attention|ffn)_residual",
                       activation(r, Placement::shard(1))));
  rules.push_back(rule("norm_outputs", "(" + kLayer + "(attention_norm|ffn_norm)|norm)\\.to_bf16",
                       activation(r, Placement::shard(1))));
  rules.push_back(
      rule("colwise_outputs", kLayer + kColwise + "\\.einsum", activation(r, Placement::shard(2))));
  rules.push_back(rule("rowwise_outputs", kLayer + kRowwise + "\\.einsum",
                       activation(r, Placement::partial())));
  // The module boundaries between the styles (docs/parallelize.md, "Ops between the parallel
  // styles"): the attention's and the feed-forward's PrepareModuleInput, and the output's
  // ColwiseParallel, gather the sequence-parallel norm output once per module (its alias is
  // the one place every reader shares); the embedding's RowwiseParallel reduce-scatters its
  // output into the sequence-parallel stream.
  rules.push_back(rule("module_inputs",
                       "(" + kLayer + "(attention_norm|ffn_norm)|norm)\\.to_bf16\\.alias",
                       activation(r, Placement::replicate())));
  rules.push_back(rule("embedding_output", "tok_embeddings\\.embedding\\.alias",
                       activation(r, Placement::shard(1))));
  // FSDP2's unshard: the op reading a linear's weight (its transpose) or a norm's weight (the
  // cast's alias, read by the forward and the backward) takes the whole TP-local parameter.
  Placements colwise_t(r.ndim, Placement::replicate());
  Placements rowwise_t(r.ndim, Placement::replicate());
  if (r.tp) {
    colwise_t[*r.tp] = Placement::shard(1);
    rowwise_t[*r.tp] = Placement::shard(0);
  }
  rules.push_back(
      rule("unsharded_colwise", "(" + kLayer + kColwise + "|output)\\.weight_t", colwise_t));
  rules.push_back(rule("unsharded_rowwise", kLayer + kRowwise + "\\.weight_t", rowwise_t));
  rules.push_back(rule("unsharded_norms",
                       "(" + kLayer + "(attention_norm|ffn_norm)|norm)\\.weight_cast\\.alias",
                       Placements(r.ndim, Placement::replicate())));
  // The logits, the model output (its alias) and its tangent: vocab-sharded (loss parallel).
  rules.push_back(rule("logits", "output\\.einsum(\\.alias)?|logits\\.tangent",
                       activation(r, Placement::shard(2))));
}

// The backward, the mirror of the forward: input gradients as the forward's inputs (colwise:
// partial before the reduce-scatter into the sequence-parallel stream), weight gradients summed
// over the batch (Partial, reduce-scattered by FSDP) and sharded on tp as their weight.
void add_backward_rules(const Roles& r, std::vector<PinRule>& rules) {
  const std::string bwd = kLayer + "bwd\\.";
  rules.push_back(rule("residual_stream_grads", bwd + "(attention|ffn)_residual\\.grad",
                       activation(r, Placement::shard(1))));
  // The backward of a RowwiseParallel output's reduce-scatter: the residual stream's gradient
  // all-gathered on tp once, for both the input and the weight gradient of wo or w2 (its alias is
  // where they and the residual's own gradient read it).
  rules.push_back(
      rule("rowwise_output_grads",
           "(" + bwd + "(attention|ffn)_residual\\.grad|bwd\\.norm\\.grad_to_bf16)\\.alias",
           activation(r, Placement::replicate())));
  rules.push_back(rule("colwise_grad_inputs", bwd + kColwise + "\\.grad_input",
                       activation(r, Placement::partial())));
  rules.push_back(rule("rowwise_grad_inputs", bwd + kRowwise + "\\.grad_input",
                       activation(r, Placement::shard(2))));
  // grad_weight is [out, in] like its weight (the permute of the einsum's [in, out]
  // grad_weight_t), so it takes the weight's TP placement: colwise and output rows S(0), rowwise
  // columns S(1).
  rules.push_back(rule("colwise_grad_weights", bwd + kColwise + "\\.grad_weight",
                       gradient(r, Placement::shard(0))));
  rules.push_back(rule("rowwise_grad_weights", bwd + kRowwise + "\\.grad_weight",
                       gradient(r, Placement::shard(1))));
  rules.push_back(
      rule("output_grads", "bwd\\.output\\.grad_weight", gradient(r, Placement::shard(0))));
  // FSDP2 reduces in fp32 (reduce_dtype, docs/reference/torchtitan.md §3): the gradient is cast
  // while still partial, so the reduce-scatter into the parameter's layout moves fp32.
  rules.push_back(rule("colwise_grad_casts", bwd + kColwise + "\\.grad_weight_cast",
                       gradient(r, Placement::shard(0))));
  rules.push_back(rule("rowwise_grad_casts", bwd + kRowwise + "\\.grad_weight_cast",
                       gradient(r, Placement::shard(1))));
  rules.push_back(rule("output_grad_cast", "bwd\\.output\\.grad_weight_cast",
                       gradient(r, Placement::shard(0))));
  // The norm weights' gradients: TP's all-reduce of the Replicate weight's Partial gradient runs
  // on bf16 (the compute dtype), then FSDP casts to fp32 for its reduce-scatter.
  rules.push_back(rule("norm_grad_casts",
                       "(" + bwd + "(attention_norm|ffn_norm)|bwd\\.norm)\\.grad_weight_cast",
                       gradient(r, Placement::replicate())));
  // The embedding's gradient: each data-parallel rank sums its own tokens' rows (Partial), cast
  // to f32 for FSDP's reduce-scatter. Under tp it stays free: torchtitan's vocab-parallel
  // backward has no strategy row in dtplan's embedding rule (docs/parallelize.md).
  if (!r.tp) {
    rules.push_back(rule("embedding_grad", "bwd\\.tok_embeddings\\.grad(_cast)?",
                         gradient(r, Placement::replicate())));
  }
  rules.push_back(
      rule("output_grad_input", "bwd\\.output\\.grad_input", activation(r, Placement::partial())));
  // The backward of a module input's gather: the summed (Partial) gradient is reduce-scattered
  // into the sequence-parallel stream on bf16, before the norm's backward casts it to fp32.
  rules.push_back(rule("module_input_grads",
                       "(" + kLayer + "bwd\\.(attention_norm|ffn_norm)|bwd\\.norm)\\.grad_to_f32",
                       activation(r, Placement::shard(1))));
}

// Context parallel's ring attention (docs/reference/torchtitan.md §4), only with a cp dim: the SDPA
// forward's output and the backward's dq [B,H,S,hd] batch-sharded, sequence-sharded S(2) on cp (the
// attention rule's sequence row: q local, K and V gathered whole), heads on tp.
void add_attention_rules(const Roles& r, std::vector<PinRule>& rules) {
  if (!r.cp) return;
  Placements p(r.ndim, Placement::replicate());
  if (r.replicate) p[*r.replicate] = Placement::shard(0);
  if (r.shard) p[*r.shard] = Placement::shard(0);
  p[*r.cp] = Placement::shard(2);
  if (r.tp) p[*r.tp] = Placement::shard(1);
  rules.push_back(rule("ring_attention", kLayer + "attention\\.sdpa", p));
  // Ring attention gathers K and V over cp before GQA repeats their heads (the all-gather moves
  // n_kv_heads, docs/reference/torchtitan.md §4): the repeat's first op reads them whole on cp.
  Placements kv = p;
  kv[*r.cp] = Placement::replicate();
  if (r.tp) kv[*r.tp] = Placement::shard(2);
  rules.push_back(rule("ring_attention_kv", kLayer + "attention\\.(k|v)_repeat\\.unsqueeze", kv));
  rules.push_back(rule("ring_attention_grads", kLayer + "bwd\\.attention\\.sdpa\\.grad", p));
}

// "dp_replicate", "dp_shard", "cp", "tp".
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
        slot = &r.cp;
        break;
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
  // Head-tail load balancing splits each sequence into 2·cp chunks, which sequence parallel
  // splits over tp (docs/reference/torchtitan.md §1, §4).
  const std::int64_t chunks = 2 * r.cp_size() * t;
  if (r.cp && config.seq_len % chunks != 0) {
    return core::Error::bad_input(std::string(kSource) + ": rule 'tokens': seq_len " +
                                  std::to_string(config.seq_len) + " is not divisible by 2 x cp " +
                                  std::to_string(r.cp_size()) + " x tp " + std::to_string(t) +
                                  " = " + std::to_string(chunks) +
                                  " (context parallel's head-tail chunks)");
  }
  // torchtitan's data loader gives each data-parallel rank whole sequences of the microbatch.
  std::int64_t dp = 1;
  for (const std::optional<std::size_t>& d : {r.replicate, r.shard}) {
    if (d) dp *= sizes[*d];
  }
  const std::int64_t micro = graph::llama3_microbatch(config);
  if (micro % dp != 0) {
    return core::Error::bad_input(
        std::string(kSource) + ": rule 'tokens': the microbatch of " + std::to_string(micro) +
        " sequences (batch " + std::to_string(config.batch) + " / grad_accum " +
        std::to_string(config.grad_accum) + ") does not divide over the " + std::to_string(dp) +
        " data-parallel ranks");
  }
  PinSet out;
  out.source = std::string(kSource);
  add_parameter_rules(r, out.rules);
  add_forward_rules(r, out.rules);
  add_backward_rules(r, out.rules);
  add_attention_rules(r, out.rules);
  out.unpinned = UnpinnedOps::kLocal;
  return out;
}

std::vector<std::int32_t> context_parallel_dims(const std::vector<std::string>& names) {
  std::vector<std::int32_t> out;
  for (std::size_t d = 0; d < names.size(); ++d) {
    auto role = parse_mesh_role(names[d]);
    if (role.ok() && *role == MeshRole::kCp) out.push_back(static_cast<std::int32_t>(d));
  }
  return out;
}

}  // namespace dtplan::strategy
