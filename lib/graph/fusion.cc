#include "graph/fusion.h"

#include <algorithm>

#include "core/min_union_find.h"

namespace dtplan::graph {
namespace {

bool is_fusible(const Node& node);

// View-likes, getitem and split: they move no data, so fusion looks through them.
bool is_transparent(const Node& node) {
  const OpFamily family = op_family(node.op);
  return family == OpFamily::kView || (family == OpFamily::kTuple && node.op != OpKind::kCat);
}

// The op whose data `id` is, looking through transparent nodes (their first input).
NodeId data_source(const Graph& graph, NodeId id) {
  while (is_transparent(graph.node(id)) && !graph.node(id).inputs.empty()) {
    id = graph.node(id).inputs.front();
  }
  return id;
}

// Whether `node` runs a kernel of its own that no region can absorb (a matmul, attention, an op
// outside the layers): fusion cannot reach across it.
bool is_barrier(const Node& node) {
  return !is_fusible(node) && !is_transparent(node) && op_family(node.op) != OpFamily::kLeaf;
}

// Per node, how many barrier kernels lie on the longest path from the graph's inputs to it
// (itself included). Two ops of equal level have no barrier between them, so a region whose
// edges join equal levels only is convex: no op of it waits for a kernel that waits for another.
std::vector<std::int32_t> barrier_levels(const Graph& graph) {
  std::vector<std::int32_t> level(graph.size(), 0);
  const auto nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::int32_t l = 0;
    for (NodeId in : nodes[i].inputs)
      l = std::max(l, level[static_cast<std::size_t>(index_of(in))]);
    level[i] = l + (is_barrier(nodes[i]) ? 1 : 0);
  }
  return level;
}

// Whether two ops can share a kernel: both fusible, in the same layer and phase, with no barrier
// kernel between them.
bool fusable_pair(const Node& a, const Node& b, std::int32_t level_a, std::int32_t level_b) {
  return is_fusible(a) && is_fusible(b) && a.layer == b.layer && a.phase == b.phase &&
         level_a == level_b;
}

// Whether every op that reads `id`'s output `output` (through transparent users) is in region
// `root`; false when nothing reads it (a graph output keeps its value).
class OutputScan {
 public:
  OutputScan(const Graph& graph, const UserIndex& users, core::MinUnionFind& regions)
      : graph_(graph), users_(users), regions_(regions) {}

  bool read_only_inside(NodeId id, std::size_t output, std::int32_t root) {
    bool any = false;
    for (NodeId u : users_.of(id)) {
      const Node& user = graph_.node(u);
      // A getitem reads the output its index names; any other op reads output 0.
      std::int64_t reads = 0;
      if (user.op == OpKind::kGetitem) {
        const auto index = user.attrs.get_int("index");
        if (!index.ok()) return false;
        reads = *index;
      }
      if (reads != static_cast<std::int64_t>(output)) continue;
      if (!reaches_only(u, root, any)) return false;
    }
    return any;
  }

 private:
  // Every non-transparent op reached from `id` through transparent ones is in region `root`.
  bool reaches_only(NodeId id, std::int32_t root, bool& any) {
    const Node& node = graph_.node(id);
    if (!is_transparent(node)) {
      any = true;
      return is_fusible(node) && regions_.find(index_of(id)) == root;
    }
    for (NodeId u : users_.of(id)) {
      if (!reaches_only(u, root, any)) return false;
    }
    return true;
  }

  const Graph& graph_;
  const UserIndex& users_;
  core::MinUnionFind& regions_;
};

// Whether `node` can join a fused region: a pointwise, reduction, softmax, norm or factory op,
// or cat, inside a layer.
bool is_fusible(const Node& node) {
  if (node.layer < 0) return false;
  switch (op_family(node.op)) {
    case OpFamily::kPointwise:
    case OpFamily::kReduction:
    case OpFamily::kSoftmax:
    case OpFamily::kNorm:
    case OpFamily::kFactory:
      return true;
    case OpFamily::kTuple:
      return node.op == OpKind::kCat;
    default:
      return false;
  }
}

}  // namespace

std::vector<FusedOp> fuse_regions(const Graph& graph, core::Execution execution) {
  std::vector<FusedOp> out(graph.size());
  if (execution == core::Execution::kEager) return out;
  core::MinUnionFind regions(graph.size());
  const std::vector<std::int32_t> level = barrier_levels(graph);
  const auto nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!is_fusible(nodes[i])) continue;
    for (NodeId in : nodes[i].inputs) {
      const NodeId src = data_source(graph, in);
      const auto j = static_cast<std::size_t>(index_of(src));
      if (fusable_pair(nodes[i], nodes[j], level[i], level[j])) {
        regions.unite(static_cast<std::int32_t>(i), index_of(src));
      }
    }
  }
  const UserIndex users(graph);
  OutputScan scan(graph, users, regions);
  std::vector<std::int32_t> number(graph.size(), -1);
  std::int32_t next = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!is_fusible(nodes[i])) continue;
    const std::int32_t root = regions.find(static_cast<std::int32_t>(i));
    FusedOp& f = out[i];
    auto& region = number[static_cast<std::size_t>(root)];
    if (region < 0) region = next++;
    f.region = region;
    f.launches = root == static_cast<std::int32_t>(i);
    for (std::size_t s = 0; s < nodes[i].inputs.size() && s < 64; ++s) {
      const NodeId src = data_source(graph, nodes[i].inputs[s]);
      if (is_fusible(graph.node(src)) && regions.find(index_of(src)) == root) {
        f.internal_inputs |= std::uint64_t{1} << s;
      }
    }
    for (std::size_t o = 0; o < nodes[i].outputs.size() && o < 64; ++o) {
      if (scan.read_only_inside(node_id(i), o, root)) f.internal_outputs |= std::uint64_t{1} << o;
    }
  }
  return out;
}

}  // namespace dtplan::graph
