#pragma once
// The placement text syntax of DESIGN.md: parsing and canonical printing.
//
//   short   S(d)   _S(d,sf)   R   P(sum|avg|max|min)
//   long    Shard(0) Shard(dim=0)  _StridedShard(0, sf=2)  Replicate()  Partial(sum)  Partial()
//   list    one placement per mesh dim, comma-separated: "S(0),R,P(sum)"
//   order   a [k] suffix on a shard gives its position in its tensor dim's shard order:
//           "S(0)[1],S(0)[0]" means mesh dim 1 splits tensor dim 0 first
//
// Whitespace around tokens is ignored; names are case-sensitive. Negative dims (S(-1)) are kept
// as written; TensorSpec::make resolves them against the tensor rank. Errors are kBadInput and
// name the input, the item and its 1-based position:
//   "--from: 'Shrad(0)' at position 1 is not a placement; expected S(d), _S(d,sf), R or P(op)"
// PyTorch reduce ops that dtplan does not support (P(prod), P(band), ...) are kUnsupported.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "placement/placement.h"
#include "placement/shard_order.h"

namespace dtplan::placement {

// A parsed placement list: one placement per mesh dim and the [k] suffix of each (-1 for none).
// Suffixes become a ShardOrder in TensorSpec::make, once negative dims are resolved.
struct PlacementList {
  std::vector<Placement> placements;
  std::vector<std::int32_t> order_positions;  // same length as placements; -1 = no suffix

  bool operator==(const PlacementList&) const = default;
};

// One placement, short or long form, no suffix. Example: parse_placement("_S(0, sf=2)", "--to")
// == Placement::strided_shard(0, 2). "_S(0,1)" gives S(0) (the same layout).
core::Result<Placement> parse_placement(std::string_view text, std::string_view what);

// "sum" | "avg" | "max" | "min". PyTorch-only ops (prod, product, band, bor, bxor) are
// kUnsupported.
core::Result<ReduceOp> parse_reduce_op(std::string_view text, std::string_view what);

// A comma-separated list with optional [k] suffixes on Shard and StridedShard items.
// Example: parse_placement_list("S(0)[1], S(0)[0], R", "--from") gives placements
// {S(0), S(0), R} and order_positions {1, 0, -1}.
// @post error iff an item does not parse, the list is empty, or a suffix follows R or P.
core::Result<PlacementList> parse_placement_list(std::string_view text, std::string_view what);

// "S(0),R,P(sum)".
std::string format_placements(std::span<const Placement> placements);

// Canonical list text with suffixes: each shard of a tensor dim split by two or more mesh dims
// carries its position in `order` (as PyTorch's format_shard_order_str); single shards carry none.
// Example: {S(0), S(0), R} with order {0: [1, 0]} -> "S(0)[1],S(0)[0],R".
// @pre validate_shard_order(order, placements).ok().
std::string format_placement_list(std::span<const Placement> placements, const ShardOrder& order);

// A parsed list printed back with its suffixes as written: parse_placement_list(
// format_placement_list(x)) == x for every list whose suffixes follow shard-like placements.
std::string format_placement_list(const PlacementList& list);

// The suffixes that format_placement_list prints, as a PlacementList (parse of that text).
PlacementList to_placement_list(std::span<const Placement> placements, const ShardOrder& order);

// The DTensor debug-trace form of one state: the same items without separators, e.g.
// "S(0)[0]S(0)[1]R" or "RR". A redistribution trace joins states with "->" (or "-->" for a
// flattened step): "S(0)[0]S(0)[1]-->RR".
std::string format_trace_state(std::span<const Placement> placements, const ShardOrder& order);

}  // namespace dtplan::placement
