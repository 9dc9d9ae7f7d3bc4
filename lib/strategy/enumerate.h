#pragma once
// enumerate_op(): the strategies of one op on a mesh, with compute costs
// (docs/reference/strategy_selection.md §2, §3.1). The rule is
// chosen by op family (ops/*.cc, one file per family); its candidates are then filtered by
// remove_invalid_configs (local_shapes.h: each shard needs the dim's current length >= the mesh
// dim's size; uneven pieces are allowed), by TensorSpec's Partial-mix rule, de-duplicated on (input
// lists, output lists, masked flags) keeping the first, and priced (compute_cost.h).
//
// Order of the result (the tie-break order; every rule documents its rows):
//   - single-dim rules: rows R first, then the family's rows; the Cartesian product over mesh
//     dims in itertools.product order (mesh dim 0 slowest), candidates.h;
//   - leaves and aliases: per mesh dim [R, S(0), S(1), ...], same product order;
//   - follower rules (views, casts, reductions, softmax, norms, getitem, split): producer
//     options in the producer's order, one candidate each; cat and softmax backward: the
//     options of each input's producer, slot by slot.
// The Partial-mix filter drops lists such as P(max),P(sum) that the Cartesian product forms from
// rows of different Partial kinds: DTensor cannot hold them (assert_no_mixed_partial_types), so
// they could never be redistributed to or from.
//
//   auto op = enumerate_op({node, {x_meta, w_meta}, {}}, mesh_8x8, h100);
//   op->size() == 24;  // the forward linear einsum "abk,kn->abn" on LLaMA3-8B shapes

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "graph/fusion.h"
#include "graph/node.h"
#include "strategy/strategy.h"

namespace dtplan::strategy {

struct EnumerateOptions {
  // AutoParallel PR #429 (ENABLE_SINGLE_DIM_MM_FAMILY, default off there too): mm, bmm and addmm
  // also offer, for every split factor sf found on a _StridedShard of any producer option, a
  // variant of each sharded row with every Shard(d) of the row replaced by _StridedShard(d, sf).
  bool strided_mm = false;
  // Parameters and their gradients (leaves and aliases) also offer, after their R/S options,
  // each option that shards one tensor dim d over two mesh dims i < j with mesh dim j splitting
  // first: _StridedShard(d, size_j) on i and Shard(d) on j. This is FSDP2's layout of a weight
  // TP already shards on d (torchtitan's colwise weights, embedding and output); its FSDP
  // all-gather on i yields the TP-local shard. On for plans pinned to such placements. With
  // context_parallel_dims, three or more such mesh dims too (FSDP over dp_shard x cp).
  bool strided_params = false;
  // The mesh dims that are context parallel (a torchtitan `cp` dim, ascending): SDPA also offers
  // its sequence row there (ops/attention.cc, ring attention); empty elsewhere, so free search
  // on other meshes is unchanged. Set for --parallelize torchtitan.
  std::vector<std::int32_t> context_parallel_dims;
  // SDPA FLOPs: false counts every (query, key) pair, as FlopCounterMode (hence AutoParallel's
  // compute cost) does; true counts only the pairs an is_causal mask keeps.
  bool causal_attention_flops = false;
  // Reuse one enumeration for nodes with equal (op, target, attributes, input and output
  // metadata, and, for rules that read them, producer strategies). Off only to check the cache.
  bool cache = true;
  // kCompiled prices the memory-bound ops of the transformer blocks as fused regions
  // (graph/fusion.h): traffic at the region's boundary only, one launch per region.
  core::Execution execution = core::Execution::kEager;

  bool operator==(const EnumerateOptions&) const = default;
};

// One op to enumerate: the node, the metadata of each input slot (the producer's output the slot
// reads), and per slot the producer's options (output placement lists, in the producer's
// strategy order). Rules that follow a producer (views, casts, reductions, ...) read them; an
// empty list stands for a leaf producer (every R/S combination of the input's shape).
struct OpRequest {
  const graph::Node& node;
  std::vector<graph::TensorMeta> inputs;
  std::vector<std::vector<Placements>> producer_options;
  graph::FusedOp fusion{};  // what kernel fusion does to the op (default: an eager kernel)
};

// @pre mesh_sizes passes placement::validate_mesh_sizes (checked: kBadInput otherwise).
// @post every strategy's lists have one placement per mesh dim, one list per output and per
//   input slot; every list is shardable() on its tensor and partials_compatible(); no two
//   strategies are equal in placements and masked flags. Errors name the node: inconsistent inputs
//   or attributes (kBadInput), more than kMaxCandidates candidates or a dtype without a peak FLOP/s
//   for an op with FLOPs (kUnsupported).
core::Result<OpStrategy> enumerate_op(const OpRequest& request,
                                      std::span<const std::int64_t> mesh_sizes,
                                      const cost::HardwareProfile& profile,
                                      const EnumerateOptions& options = {});

// The rule enumerate_op applies to `op` (kOther nodes: by their aten target).
Rule rule_for(const graph::Node& node);

// Whether the rule for `node` reads producer options (so results depend on the producers).
bool reads_producers(const graph::Node& node, const EnumerateOptions& options);

}  // namespace dtplan::strategy
