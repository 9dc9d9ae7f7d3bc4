#pragma once
// Internal to lib/solve: a labelling that meets the memory rows, made from one that breaks them,
// for an incumbent (the solver still proves or bounds it).
//
// Repair: while a row is broken (its excess: bytes above high_bytes plus bytes below low_bytes),
// apply the one-node relabelling that removes excess at the least cost per byte removed (its
// cost: the node's unary and incident edges' change with every other label fixed; a move that
// lowers cost and excess both goes first, by its cost). Then descend: sweep the nodes in order,
// each to its cheapest label that keeps every row met, until a sweep changes nothing (or the
// deadline). Ties: lower node, then lower label. The result is a deterministic function of the
// problem and the labelling (no clock reads affect it unless the deadline passes).
//
// Example: parameters replicated on a data-parallel dim break an 80 GiB row; the repair shards
// the weights whose bytes cost least per all-gather microsecond first, until the row holds.

#include <chrono>
#include <optional>
#include <vector>

#include "solve/problem.h"

namespace dtplan::solve::detail {

// The repaired labelling, or nullopt when no sequence of single moves meets every row (or a
// forbidden label or pair is in the way, or the deadline passed first).
// @pre problem has no pins or followers (simplified); labels has one valid label per node.
std::optional<std::vector<LabelIndex>> repair_memory(
    const Problem& problem, std::vector<LabelIndex> labels,
    std::chrono::steady_clock::time_point deadline);

}  // namespace dtplan::solve::detail
