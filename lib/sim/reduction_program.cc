#include "sim/reduction_program.h"

#include <algorithm>
#include <cassert>

namespace dtplan::sim {

namespace {

Operand input(std::int32_t g) { return {true, g}; }
Operand reg(std::int32_t r) { return {false, r}; }

// Appends `acc = op(acc, value)` into register `dst` and returns the register operand.
Operand combine(ReductionProgram& p, std::int32_t dst, Operand acc, Operand value) {
  p.steps.push_back({dst, acc, value});
  p.registers = std::max(p.registers, dst + 1);
  return reg(dst);
}

// Emits the value of `node`'s subtree using registers `depth` and deeper; returns its operand.
Operand emit_subtree(ReductionProgram& p, const GroupLayout& layout, const NodeTree& tree,
                     std::int32_t node, std::int32_t depth) {
  const auto& chain = layout.nodes[static_cast<std::size_t>(node)];
  Operand acc = input(chain.back());
  for (std::size_t j = chain.size() - 1; j-- > 0;) acc = combine(p, depth, acc, input(chain[j]));
  for (std::int32_t child : tree.children[static_cast<std::size_t>(node)]) {
    Operand value = emit_subtree(p, layout, tree, child, depth + 1);
    acc = combine(p, depth, acc, value);
  }
  return acc;
}

// Splits [begin, end) into the halves of the two trees.
void add_tree_halves(std::vector<ReductionSegment>& out, const ReductionProgram (&trees)[2],
                     std::int64_t begin, std::int64_t end, std::int32_t owner) {
  const std::int64_t mid = begin + (end - begin + 1) / 2;
  if (mid > begin) out.push_back({begin, mid, owner, trees[0]});
  if (end > mid) out.push_back({mid, end, owner, trees[1]});
}

}  // namespace

ReductionProgram ring_program(const GroupLayout& layout, std::int32_t end_position) {
  const auto n = static_cast<std::int32_t>(layout.ring.size());
  assert(end_position >= 0 && end_position < n);
  auto at = [&](std::int32_t k) {  // group index at position end + k (mod n)
    return layout.ring[static_cast<std::size_t>((end_position + k) % n)];
  };
  ReductionProgram p;
  Operand acc = input(at(1 % n));
  for (std::int32_t k = 2; k <= n; ++k) acc = combine(p, 0, acc, input(at(k % n)));
  p.result = acc;
  return p;
}

ReductionProgram tree_program(const GroupLayout& layout, int which) {
  const NodeTree tree = binary_tree(static_cast<std::int32_t>(layout.nodes.size()), which);
  ReductionProgram p;
  p.result = emit_subtree(p, layout, tree, tree.root, 0);
  return p;
}

std::vector<ReductionSegment> all_reduce_segments(ReductionOrder order, const GroupLayout& layout,
                                                  std::int64_t count) {
  assert(order == ReductionOrder::kRing || order == ReductionOrder::kTree);
  std::vector<ReductionSegment> out;
  const auto n = static_cast<std::int64_t>(layout.ring.size());
  if (order == ReductionOrder::kTree) {
    const ReductionProgram trees[2] = {tree_program(layout, 0), tree_program(layout, 1)};
    add_tree_halves(out, trees, 0, count, -1);
    return out;
  }
  const std::int64_t chunk = (count + n - 1) / n;
  for (std::int64_t c = 0; c < n; ++c) {
    const std::int64_t begin = std::min(count, c * chunk);
    const std::int64_t end = std::min(count, begin + chunk);
    if (end > begin)
      out.push_back({begin, end, -1, ring_program(layout, static_cast<std::int32_t>(c))});
  }
  return out;
}

std::vector<ReductionSegment> reduce_scatter_segments(ReductionOrder order,
                                                      const GroupLayout& layout,
                                                      std::int64_t block) {
  assert(order == ReductionOrder::kRing || order == ReductionOrder::kTree);
  std::vector<ReductionSegment> out;
  const auto n = static_cast<std::int32_t>(layout.ring.size());
  if (block == 0) return out;
  if (order == ReductionOrder::kTree) {
    const ReductionProgram trees[2] = {tree_program(layout, 0), tree_program(layout, 1)};
    for (std::int32_t g = 0; g < n; ++g) add_tree_halves(out, trees, g * block, (g + 1) * block, g);
    return out;
  }
  for (std::int32_t g = 0; g < n; ++g) {
    const std::int32_t end_position = layout.ring_position[static_cast<std::size_t>(g)];
    out.push_back({g * block, (g + 1) * block, g, ring_program(layout, end_position)});
  }
  return out;
}

}  // namespace dtplan::sim
