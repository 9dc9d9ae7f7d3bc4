#pragma once
// Strategy and OpStrategy: what one op may do on a device mesh
// (docs/reference/strategy_selection.md §1.2, §2). A node's OpStrategy lists its strategies; each
// fixes one placement list per output (tuple outputs: SDPA, split, fused norms), the placement list
// it expects for each input slot (duplicates kept: mul(x, x) has two slots), its compute cost on
// one GPU (µs, docs/reference/strategy_selection.md §3.1) and the local shapes of its outputs.
//
//   mm [m,k] x [k,n] on mesh (8,): strategy "P(sum) <- S(1), S(0)" splits k: each rank
//   multiplies its [m,k/8] x [k/8,n] pieces into a partial [m,n].
//
// Order is meaningful: strategies come in enumeration order (enumerate.h documents it), which is
// the tie-break order the solver must use between equal-cost choices.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/tensor_meta.h"
#include "placement/local_shape.h"
#include "placement/placement.h"

namespace dtplan::strategy {

// One placement per mesh dim.
using Placements = std::vector<placement::Placement>;

// `seed` with the list's length and each placement's hash_value folded in (core::hash_combine).
std::size_t hash_placements(std::size_t seed, const Placements& list);

// The enumeration rule that produced an OpStrategy: the strategy layer's op families. The
// family_counts() rows follow this order.
enum class Rule : std::uint8_t {
  kLeaf,       // placeholders: every R/S combination (docs/reference/strategy_selection.md §2.2)
  kAlias,      // alias: every R/S combination, input = output
               // (docs/reference/strategy_selection.md §2.2)
  kFactory,    // zeros/ones/full/empty: R or any Shard; arange: R only
  kMatmul,     // mm, bmm, addmm (docs/reference/strategy_selection.md §2.3), with the StridedShard
               // variants of docs/reference/strategy_selection.md §2.5 as an option
  kEinsum,     // einsum, incl. the linear rewrite's fwd / grad-input / grad-weight
               // (docs/reference/strategy_selection.md §2.3-2.4)
  kPointwise,  // elementwise with broadcasting and the Partial rows of
               // docs/reference/strategy_selection.md §2.6
  kCast,       // _to_copy, dtype_cast, clone: one strategy per producer option
               // (docs/reference/strategy_selection.md §2.6)
  kReduction,  // sum/mean/amax/amin and non-linear reductions
               // (docs/reference/strategy_selection.md §2.7)
  kSoftmax,    // _softmax and its backward (docs/reference/strategy_selection.md §2.8)
  kNorm,       // fused RMS norm, native layer norm, forward and backward
               // (docs/reference/strategy_selection.md §2.8)
  kEmbedding,  // embedding and embedding_dense_backward (docs/reference/strategy_selection.md §2.9)
  kView,       // view-likes: one strategy per producer option
               // (docs/reference/strategy_selection.md §2.10)
  kTuple,      // getitem, split, cat
  kAttention,  // SDPA forward and backward (docs/reference/strategy_selection.md §2.11)
  kReplicate,  // ops without a rule: all-Replicate (AutoParallel's last resort,
               // docs/reference/strategy_selection.md §2.1)
  kOutput,     // the graph output node: not part of the problem, no strategies
};

// "leaf", "alias", "factory", "matmul", "einsum", "pointwise", "cast", "reduction", "softmax",
// "norm", "embedding", "view", "tuple", "attention", "replicate", "output".
std::string_view rule_name(Rule rule);

struct Strategy {
  std::vector<Placements> outputs;  // one list per output, in output order
  std::vector<Placements> inputs;   // one list per input slot, in slot order
  // Local output shapes at mesh coordinate 0 (torch.chunk gives it the largest piece), one per
  // output; a Partial dim keeps its full size.
  std::vector<graph::Shape> local_output_shapes;
  double compute_us = 0;  // roofline time on one GPU (0 for view-likes, leaves, getitem)
  // dtplan's stand-in for DTensor's _MaskPartial (placement has no such kind): bit i set means
  // output 0's P(sum) on mesh dim i is a vocab-parallel embedding's masked partial. The local
  // lookup zeroes rows outside the rank's vocab shard, so the value is a true partial sum and
  // redistributes as P(sum); the flag tells lowering that the embedding kernel must mask.
  placement::MeshDimMask masked_partial = 0;

  bool operator==(const Strategy&) const = default;
};

struct OpStrategy {
  Rule rule = Rule::kReplicate;
  std::vector<Strategy> strategies;
  // Follower info (Alpa's followers). When follows_slot >= 0, every strategy was derived from
  // one option of the producer feeding that input slot (one strategy per producer option, then
  // invalid ones dropped and duplicates merged), and follower_map[j] is the strategy derived
  // from producer option j, or -1 where option j yields none. A solver may then fix this node's
  // choice to follower_map[producer's choice]. follows_slot == -1: a free node, map empty.
  std::int32_t follows_slot = -1;
  std::vector<std::int32_t> follower_map;

  [[nodiscard]] bool is_follower() const { return follows_slot >= 0; }
  [[nodiscard]] std::size_t size() const { return strategies.size(); }

  bool operator==(const OpStrategy&) const = default;
};

// One line: outputs, then "<-", then inputs; lists joined by "; ", a masked partial as P(sum)*.
// Example: "S(0),S(2) <- S(0),R; R,S(1)" (the wq einsum with batch on dp and N on tp).
std::string format_strategy(const Strategy& strategy);

// The placement lists of output `index` over all strategies, in strategy order: what a consumer
// sees as this producer's options. @pre index < every strategy's outputs.size().
std::vector<Placements> output_options(const OpStrategy& op, std::size_t index);

}  // namespace dtplan::strategy
