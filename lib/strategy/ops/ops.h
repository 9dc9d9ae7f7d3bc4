#pragma once
// The interface between enumerate_op() and the per-family rules (one .cc per family under
// ops/). A rule sees the node, its input metadata, the producers' options and the mesh, and
// returns candidates in its documented order; enumerate_op() validates, de-duplicates and prices
// them. Rules return kBadInput errors (without the node label; the caller adds it) for attributes
// or inputs that do not fit the op.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/node.h"
#include "graph/shape_infer.h"
#include "strategy/candidates.h"
#include "strategy/enumerate.h"
#include "strategy/local_shapes.h"

namespace dtplan::strategy::ops {

using placement::Placement;

struct OpContext {
  const graph::Node& node;
  std::span<const graph::TensorMeta> inputs;           // per slot
  std::span<const std::vector<Placements>> producers;  // per slot; empty = leaf producer
  std::span<const std::int64_t> mesh;
  const EnumerateOptions& options;
  graph::FusedOp fusion{};  // what kernel fusion does to the op's compute cost

  [[nodiscard]] std::size_t mesh_ndim() const { return mesh.size(); }
  [[nodiscard]] const graph::Shape& in_shape(std::size_t slot) const { return inputs[slot].shape; }
  [[nodiscard]] const graph::Shape& out_shape(std::size_t i) const { return node.outputs[i].shape; }
  [[nodiscard]] std::size_t num_inputs() const { return inputs.size(); }
  [[nodiscard]] std::size_t num_outputs() const { return node.outputs.size(); }
  // The options of the producer of `slot`; the leaf options of the input's shape when none
  // were given.
  [[nodiscard]] std::vector<Placements> producer_options(std::size_t slot) const;
};

struct RuleOutput {
  Rule rule = Rule::kReplicate;
  std::vector<Candidate> candidates;
  std::int32_t follows_slot = -1;  // follower rules: the slot whose producer options they map
  std::size_t producer_count = 0;  // follower rules: how many options that producer has
};

// ---- shared helpers ---------------------------------------------------------------------------

// Every combination of {R, S(0), ..., S(rank-1)} per mesh dim in product order (mesh dim 0
// slowest), keeping those shardable() on `shape`: a leaf's options
// (docs/reference/strategy_selection.md §2.2).
std::vector<Placements> leaf_options(const graph::Shape& shape, std::span<const std::int64_t> mesh);

// A single-dim rule's rows expanded over the mesh (candidates.h), as a RuleOutput.
core::Result<RuleOutput> expand(Rule rule, std::span<const DimRow> rows, const OpContext& ctx);

// A follower rule: one candidate per option of the producer of `slot` (in order), from
// `map(option)`, which may return nullopt to skip an option.
template <class Map>
RuleOutput follow(Rule rule, const OpContext& ctx, std::size_t slot, Map map) {
  RuleOutput out;
  out.rule = rule;
  out.follows_slot = static_cast<std::int32_t>(slot);
  const std::vector<Placements> options = ctx.producer_options(slot);
  out.producer_count = options.size();
  out.candidates.reserve(options.size());
  for (std::size_t j = 0; j < options.size(); ++j) {
    std::optional<Candidate> c = map(options[j]);
    if (!c) continue;
    c->source = static_cast<std::int32_t>(j);
    out.candidates.push_back(std::move(*c));
  }
  return out;
}

// True when `p` shards tensor dim `dim` (Shard or _StridedShard).
inline bool shards_dim(const Placement& p, std::int64_t dim) {
  return p.is_shard_like() && p.dim() == dim;
}

// `p` moved to tensor dim `dim` (shard-like keeps its split factor); other kinds unchanged.
inline Placement moved_to(const Placement& p, std::int64_t dim) {
  return p.is_shard_like() ? p.with_dim(static_cast<std::int32_t>(dim)) : p;
}

// The placement an input of shape `in` needs for an output placement `out_p` of shape `out`
// under NumPy broadcasting (trailing dims aligned): a shard of output dim d shards the input's
// aligned dim, or is R where the input lacks that dim or broadcasts it (size 1 against a larger
// output). R and P are returned unchanged.
// Example: out [4,6,8] S(2), input [8] -> S(0); input [6,1] -> R.
Placement broadcast_to_input(const Placement& out_p, const graph::Shape& out,
                             const graph::Shape& in);

// Reads a dim attribute (int or list) and wraps each into [0, rank); `fallback_all` returns
// every dim when the attribute is absent or empty.
core::Result<std::vector<std::int64_t>> dims_attr(const graph::Node& node, std::string_view name,
                                                  std::size_t rank, bool fallback_all);

// ---- the families -------------------------------------------------------------------------------

core::Result<RuleOutput> leaf_rule(const OpContext& ctx);       // placeholder, alias (leaf.cc)
core::Result<RuleOutput> factory_rule(const OpContext& ctx);    // factories (leaf.cc)
core::Result<RuleOutput> matmul_rule(const OpContext& ctx);     // mm, bmm, addmm (matmul.cc)
core::Result<RuleOutput> einsum_rule(const OpContext& ctx);     // einsum (einsum.cc)
core::Result<RuleOutput> pointwise_rule(const OpContext& ctx);  // elementwise (pointwise.cc)
core::Result<RuleOutput> cast_rule(const OpContext& ctx);       // casts, clone (pointwise.cc)
core::Result<RuleOutput> reduction_rule(const OpContext& ctx);  // reductions (reduction.cc)
core::Result<RuleOutput> softmax_rule(const OpContext& ctx);    // softmax (softmax.cc)
core::Result<RuleOutput> norm_rule(const OpContext& ctx);       // norms (norm.cc)
core::Result<RuleOutput> embedding_rule(const OpContext& ctx);  // embedding (embedding.cc)
core::Result<RuleOutput> view_rule(const OpContext& ctx);       // view-likes (view.cc)
core::Result<RuleOutput> tuple_rule(const OpContext& ctx);      // getitem, split, cat (tuple.cc)
core::Result<RuleOutput> attention_rule(const OpContext& ctx);  // SDPA (attention.cc)
core::Result<RuleOutput> other_rule(const OpContext& ctx);      // kOther targets (other.cc)

// The all-Replicate strategy (AutoParallel's last resort).
RuleOutput replicate_rule(const OpContext& ctx);

// The rule of a kOther node by its aten target: native_layer_norm(_backward) -> kNorm; var, std,
// var_mean, prod, logsumexp, argmax, argmin, cumsum -> kReduction (non-linear); scalar_tensor,
// iota -> kFactory (Replicate only); anything else -> kReplicate.
Rule other_target_rule(std::string_view target);

// "aten.native_layer_norm.default" -> "native_layer_norm" (namespace and overload dropped).
std::string_view aten_base_name(std::string_view target);

}  // namespace dtplan::strategy::ops
