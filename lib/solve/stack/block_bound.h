#pragma once
// Internal to lib/solve: a lower bound for a long stack of repeated blocks from its LP messages
// and exact solves of one block at a time, much tighter than the LP's own where the local
// polytope is loose inside each layer.
//
// Any messages λ reparametrize the problem without changing the cost of a labelling (dual_bound.h:
// θ'_v = U_v + Σ_e λ_ev, θ'_e = B_e - λ_eu - λ_ev). Split the nodes into parts -- the nodes
// outside the repeat group with its block 0, then every other block alone -- and every
// labelling's cost is the sum of each part's θ' (its nodes and the edges inside it) and each edge
// between parts; so the sum of each part's optimum and each edge between parts at its least bounds
// every labelling. The LP bound is the same sum with each node and edge at its own least, so the
// exact parts win back what the relaxation's fractional point saves inside each layer (LLaMA3-70B
// on 8x8x8: the LP is tight up to 4 layers, then falls ~67 us per layer behind the plan); the
// edges between parts keep what it saves across them. The messages are first made
// periodic: every edge among the middle blocks 1 .. n - 2 (or between one of them and a node
// outside the group) takes the messages of its copy at the centre block n / 2, so that the middle
// blocks' parts are one problem, solved once (parts equal to one solved before reuse its bound:
// a digest, then an exact comparison of their unaries, matrices and messages, neither built).
//
// Example: LLaMA3-70B, 80 layers, on 8x8x8, from the long chain's LP after it stalls (bound
// 1,069,054 us, 0.81% below the plan's 1,077,767 us): five distinct parts solved (0.3-2.4 s each;
// the other 75 reuse them), bound 1,077,725 us, 0.004% below the plan.

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "solve/lp/dual_bound.h"
#include "solve/problem.h"

namespace dtplan::solve::detail {

struct BlockBoundStats {
  std::int32_t solved = 0;  // parts the caller solved
  std::int32_t reused = 0;  // parts equal to one solved before
};

// What the caller found of a part (a problem without repeats, pins or memory rows): a lower bound
// on its optimum (-inf where none is known) and its best labelling (empty where none was found).
struct PartSolution {
  double lower_bound_us = -std::numeric_limits<double>::infinity();
  std::vector<LabelIndex> labels;
};
using PartSolve = std::function<PartSolution(const Problem&)>;

struct BlockBound {
  double lower_bound_us = -std::numeric_limits<double>::infinity();
  // Each part's labelling on its nodes (empty unless every part has one): an incumbent, each
  // layer taking its part's best labelling (cheap where the edges between parts agree with them).
  std::vector<LabelIndex> labels;
};

// `messages` made periodic over the repeat group with the most blocks (ties: the first), as
// described above (exposed for tests). Edges without a copy at the centre keep theirs.
EdgeMessages periodic_messages(const Problem& problem, const EdgeMessages& messages);

// The bound above, memory rows ignored (so it bounds the labellings meeting them too), from
// `messages` (one entry per edge; empty or non-finite values read as 0), with the parts solved by
// `solve`; the bound is -inf where the problem has no repeat group of 2 or more blocks, a part has
// no bound, or the deadline passes first.
// @pre problem has no pins or followers (simplified).
BlockBound block_bound(const Problem& problem, const EdgeMessages& messages, const PartSolve& solve,
                       std::chrono::steady_clock::time_point deadline, BlockBoundStats& stats);

}  // namespace dtplan::solve::detail
