#pragma once
// Internal to lib/solve: an incumbent for a long chain of repeated layers, from a short chain.
//
// A repeat group of n >= 4 blocks whose edges between blocks join neighbours only (block b with
// b - 1 or b + 1: a stack of layers) is shortened to its blocks 0, 1 and n - 1: the edges between
// blocks n - 2 and n - 1 are re-attached to block 1 (same positions), the edges into the dropped
// blocks 2 .. n - 2 go, every node outside the group stays with the edges it keeps. The short
// problem is the same model with three layers. Its optimum, with block 1's labels repeated in
// every middle block, labels the long chain: a deep stack of identical layers usually takes one
// plan in every middle layer, which the LP bound's labelling of a long chain misses (LLaMA3-70B,
// 80 layers on 8x8x8: the LP labelling after 60 passes costs 1.8% more than the 3-layer optimum
// lengthened). Memory rows carry over with each short node's bytes summed over the long nodes
// that copy it (block 1's over blocks 1 .. n - 2), so a short labelling meets them exactly when
// its lengthening does. It is only an incumbent: the long chain's optimum may mix plans, so the
// caller still proves or bounds it.
//
// Example: 32 blocks of a chain a_b -> c_b -> a_(b+1): the short problem holds blocks 0, 1 and 31,
// with c_1 -> a_31 standing for c_30 -> a_31; a labelling y of it lengthens to y(a_b) = y(a_1) and
// y(c_b) = y(c_1) for b = 1 .. 30.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "solve/lp/dual_bound.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

struct ShortChain {
  Problem problem;                // three blocks, one repeat group, memory rows folded in
  std::vector<NodeIndex> source;  // per node of the long problem: the short node it copies
  // Per edge of the long problem and end (from, to): the short edge whose messages at the same
  // end stand for it (see lengthen_messages), or -1.
  std::vector<std::array<std::int32_t, 2>> edge_source;
  // Per node of the long problem: its middle block 1 .. middle (blocks 1 .. n - 2), 0 elsewhere.
  std::vector<std::int32_t> middle_block;
  std::int32_t middle = 0;  // n - 2
};

// The repeat group with the most blocks (ties: the first), or null: the stack of layers that the
// short chain shortens and the block bound (block_bound.h) splits.
const RepeatGroup* longest_group(const Problem& problem);

// Per node of the problem: its block in a repeat group and its position in that block (-1 for
// both outside the group).
struct BlockPositions {
  std::vector<std::int32_t> block;
  std::vector<std::int32_t> position;
};
BlockPositions block_positions(const Problem& problem, const RepeatGroup& group);

// The short chain of the repeat group with the most blocks (ties: the first), or nullopt when it
// has fewer than 4 blocks, an edge joins blocks that are not neighbours, the problem has pins or
// followers, or the short problem is not valid (blocks that differ in their edges).
std::optional<ShortChain> short_chain(const Problem& problem);

// The long problem's labelling that copies `labels` (a labelling of chain.problem).
std::vector<LabelIndex> lengthen(const ShortChain& chain, const std::vector<LabelIndex>& labels);

// The long problem's labelling that copies `base`, except in `k` middle blocks, a run from the
// first (front) or the last, which copy `other` (both labellings of chain.problem).
std::vector<LabelIndex> lengthen_mixed(const ShortChain& chain, const std::vector<LabelIndex>& base,
                                       const std::vector<LabelIndex>& other, std::int32_t k,
                                       bool front);

// Long labellings that meet `rows` (the long problem's memory rows), mixed from two short
// labellings: `over`, whose lengthening breaks a row, and `under`, whose lengthening meets them.
// For each run direction (front, then back): `over` with the fewest middle blocks from `under`,
// then `under` with the most from `over`, where any such mix meets the rows (found by bisection:
// the rows' bytes move one way as blocks are swapped when the middle blocks are alike). A memory-
// bound stack takes a lean plan in some layers and a cheap one in the rest.
std::vector<std::vector<LabelIndex>> mixes_within(const ShortChain& chain,
                                                  const std::vector<MemoryRow>& rows,
                                                  const std::vector<LabelIndex>& over,
                                                  const std::vector<LabelIndex>& under);

// Messages for the long problem's LP bound (dual_bound.h) from the short problem's: each end
// copies its edge_source's (empty where there is none). An edge from a middle block to the next
// takes, at its earlier end, block 1's messages towards block n - 1 and, at its later end, block
// 1's from block 0, so that every middle block holds block 1's reparametrization: a warm start
// that is near the long chain's own fixed point when the short chain's LP has converged.
EdgeMessages lengthen_messages(const ShortChain& chain, const EdgeMessages& messages);

}  // namespace dtplan::solve::detail
