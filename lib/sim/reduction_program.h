#pragma once
// ReductionProgram: the exact association of one element's n contributions, as a straight-line
// program of binary steps `register = op(lhs, rhs)`; every input appears exactly once. The
// reduction engine (reduce_engine.h) runs a program over blocks of elements, and which program
// covers which elements is given by segments.
//
// Ring (NCCL's ring reduce-scatter phase, as all_reduce and reduce_scatter both run it): the
// partial sum of the chunk that ends at ring position c starts at position c+1, which sends its
// own value; every following position adds its value to what it received; position c adds its
// value last:  ((x[c+1] + x[c+2]) + ...) + x[c]  (positions mod n).
//   all_reduce: the buffer is cut into n chunks with torch.chunk sizes (ceil(count/n) each, a
//     short or empty tail); chunk c ends at ring position c, so each chunk has its own order and
//     every rank then receives that chunk's single result.
//   reduce_scatter: output block g (input elements [g*B, (g+1)*B)) ends at the ring position of
//     group rank g, the rank that keeps it.
//   NCCL interleaves chunks over channels and loop steps (the element-to-chunk map repeats every
//   nChannels x chunkSize x n elements); dtplan keeps the per-chunk orders but not that map.
// Tree (NCCL's double binary tree): tree 0 covers the first ceil(count/2) elements of the
// buffer (of each block for reduce_scatter), tree 1 the rest (NCCL splits channels between the
// two trees). A node's value is its chain reduced from the tail up, ((x_tail + x_..) + x_head);
// then the node's tree children are added in ascending node number, each child's value being
// that of its whole subtree; the root's value is the result, which is broadcast down.

#include <cstdint>
#include <vector>

#include "sim/reduction_order.h"

namespace dtplan::sim {

// An input (group index) or a scratch register.
struct Operand {
  bool input = true;
  std::int32_t index = 0;
  bool operator==(const Operand&) const = default;
};

struct ReductionStep {
  std::int32_t dst = 0;  // register
  Operand lhs;           // the received partial (or the first input)
  Operand rhs;           // the value added to it
  bool operator==(const ReductionStep&) const = default;
};

struct ReductionProgram {
  std::vector<ReductionStep> steps;
  std::int32_t registers = 0;  // registers 0..registers-1 are used
  Operand result;              // an input only for a one-rank group (no steps)
  bool operator==(const ReductionProgram&) const = default;
};

// The ring program whose result ends at ring position `end_position`.
// Example: ring {0,1,2,3}, end 1: r0 = x2 + x3; r0 = r0 + x0; r0 = r0 + x1.
// @pre 0 <= end_position < ring.size().
ReductionProgram ring_program(const GroupLayout& layout, std::int32_t end_position);

// The program of tree `which` (0 or 1). Registers are reused by tree depth.
// Example: nodes {{0,1},{2,3}} (2 nodes), tree 0 (node 0 root, node 1 its child):
//   r0 = x1 + x0 (node 0's chain); r1 = x3 + x2 (node 1's chain); r0 = r0 + r1.
ReductionProgram tree_program(const GroupLayout& layout, int which);

// Elements [begin, end) of the (reduce_scatter: input) buffer reduced by `program`; the result
// goes to every member (all_reduce) or to group rank `owner` at offset begin - owner * block
// (reduce_scatter).
struct ReductionSegment {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int32_t owner = -1;  // -1: every member
  ReductionProgram program;
  bool operator==(const ReductionSegment&) const = default;
};

// Segments of an all_reduce of `count` elements (ring: n chunks; tree: 2 halves), ascending and
// tiling [0, count) (empty pieces omitted). @pre order is kRing or kTree.
std::vector<ReductionSegment> all_reduce_segments(ReductionOrder order, const GroupLayout& layout,
                                                  std::int64_t count);

// Segments of a reduce_scatter whose output blocks have `block` elements (input n * block).
std::vector<ReductionSegment> reduce_scatter_segments(ReductionOrder order,
                                                      const GroupLayout& layout,
                                                      std::int64_t block);

}  // namespace dtplan::sim
