#include "strategy/selection_problem.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>

#include "core/checked.h"
#include "core/units.h"
#include "placement/placement_text.h"
#include "plan/step_runs.h"
#include "strategy/bound_pruning.h"
#include "strategy/graph_edge_costs.h"
#include "strategy/local_ops.h"
#include "strategy/pinned_labels.h"
#include "strategy/step_schedule.h"

namespace dtplan::strategy {

namespace {

std::string format_bytes_message(std::int64_t bytes);

using solve::LabelIndex;
using solve::NodeIndex;

// The labels of `op` whose output 0 is `placements`, ascending.
std::vector<LabelIndex> labels_with(const OpStrategy& op, const Placements& placements) {
  std::vector<LabelIndex> out;
  for (std::size_t l = 0; l < op.strategies.size(); ++l) {
    if (!op.strategies[l].outputs.empty() && op.strategies[l].outputs[0] == placements) {
      out.push_back(static_cast<LabelIndex>(l));
    }
  }
  return out;
}

struct Builder {
  const graph::Graph& graph;
  const GraphStrategies& strategies;
  const Constraints& constraints;
  EdgeCoster& coster;
  const ExportOptions& options;
  SelectionProblem sp;
  std::vector<std::vector<char>> allowed;     // per problem node: labels its pins allow
  std::vector<plan::OpSchedule> schedules{};  // per graph node
  // Scaled copies of edge matrices by (matrix, runs); the source is kept so its address stays
  // unique.
  std::map<std::pair<const void*, std::int64_t>, std::pair<EdgeMatrix, EdgeMatrix>> scaled{};

  // `matrix` times `runs` (shared between edges with the same matrix and runs).
  EdgeMatrix times(const EdgeMatrix& matrix, std::int64_t runs) {
    if (runs == 1) return matrix;
    auto& slot = scaled[{matrix.get(), runs}];
    if (slot.second == nullptr) {
      auto values = std::make_shared<std::vector<double>>(*matrix);
      for (double& v : *values) v *= static_cast<double>(runs);
      slot = {matrix, std::move(values)};
    }
    return slot.second;
  }

  [[nodiscard]] const OpStrategy& op_of(NodeIndex v) const {
    return strategies.of(sp.graph_node[static_cast<std::size_t>(v)]);
  }
  [[nodiscard]] NodeIndex index(graph::NodeId id) const {
    return sp.problem_node[static_cast<std::size_t>(graph::index_of(id))];
  }
  // The strategy of label l of v, and the label of strategy s of v (-1: not a label).
  [[nodiscard]] std::int32_t strategy_of(NodeIndex v, LabelIndex l) const {
    const auto& list = sp.label_strategy[static_cast<std::size_t>(v)];
    return list.empty() ? l : list[static_cast<std::size_t>(l)];
  }
  [[nodiscard]] LabelIndex label_of(NodeIndex v, std::int32_t s) const {
    if (s < 0) return -1;
    const auto& list = sp.label_strategy[static_cast<std::size_t>(v)];
    if (list.empty()) return s;
    const auto it = std::lower_bound(list.begin(), list.end(), s);
    return it != list.end() && *it == s ? static_cast<LabelIndex>(it - list.begin()) : -1;
  }
  // The strategies of v that are labels, in label order.
  [[nodiscard]] std::vector<const Strategy*> labelled(NodeIndex v) const {
    const OpStrategy& op = op_of(v);
    std::vector<const Strategy*> out;
    const auto n =
        static_cast<LabelIndex>(sp.problem.nodes[static_cast<std::size_t>(v)].cost_us.size());
    out.reserve(static_cast<std::size_t>(n));
    for (LabelIndex l = 0; l < n; ++l)
      out.push_back(&op.strategies[static_cast<std::size_t>(strategy_of(v, l))]);
    return out;
  }
  // `per_strategy` at v's labels.
  template <typename T>
  [[nodiscard]] std::vector<T> at_labels(NodeIndex v, const std::vector<T>& per_strategy) const {
    if (sp.label_strategy[static_cast<std::size_t>(v)].empty()) return per_strategy;
    std::vector<T> out;
    for (std::int32_t s : sp.label_strategy[static_cast<std::size_t>(v)]) {
      out.push_back(per_strategy[static_cast<std::size_t>(s)]);
    }
    return out;
  }

  // Per problem node, its unary cost per strategy. Identical layers share their strategy lists
  // (graph_strategies.h), so one vector per (list, runs) serves every layer; the problem's nodes
  // receive their labels' entries only once the labels are known (add_costs).
  std::vector<const std::vector<double>*> unary{};
  std::map<std::pair<const OpStrategy*, std::int64_t>, std::vector<double>> unary_of{};

  void add_nodes() {
    sp.problem_node.assign(graph.size(), -1);
    for (std::size_t i = 0; i < graph.size(); ++i) {
      const OpStrategy& op = strategies.of(graph::node_id(i));
      if (op.rule == Rule::kOutput || op.strategies.empty()) continue;
      sp.problem_node[i] = static_cast<std::int32_t>(sp.problem.nodes.size());
      sp.graph_node.push_back(graph::node_id(i));
      solve::Node node;
      node.name = graph.nodes()[i].name;
      sp.problem.nodes.push_back(std::move(node));
      const std::int64_t runs = plan::op_runs(schedules[i], options.training);
      auto [it, inserted] = unary_of.try_emplace({&op, runs});
      if (inserted) {
        it->second.reserve(op.size());
        for (const Strategy& s : op.strategies) {
          it->second.push_back(static_cast<double>(runs) * s.compute_us);
        }
      }
      unary.push_back(&it->second);
      allowed.emplace_back(op.size(), 1);
    }
    sp.label_strategy.resize(sp.graph_node.size());
  }

  // Each problem node's unary costs at its labels (after restrict_labels).
  void add_costs() {
    for (std::size_t v = 0; v < unary.size(); ++v) {
      sp.problem.nodes[v].cost_us = at_labels(static_cast<NodeIndex>(v), *unary[v]);
    }
  }

  // LabelScope::kPinned: drops the labels no pin allows (at a repeat position, those no block's
  // pins allow). Keeps every label when some node's pins allow none (simplify names it).
  void restrict_labels() {
    auto kept = pinned_labels(allowed, sp.problem.repeats);
    if (!kept) return;
    for (std::size_t v = 0; v < kept->size(); ++v) {
      if ((*kept)[v].empty()) continue;
      sp.label_strategy[v] = std::move((*kept)[v]);
      allowed[v] = at_labels(static_cast<NodeIndex>(v), allowed[v]);
    }
    for (solve::Pin& pin : sp.problem.pins) {
      std::vector<LabelIndex> labels;
      for (LabelIndex s : pin.labels) {
        if (const LabelIndex l = label_of(pin.node, s); l >= 0) labels.push_back(l);
      }
      pin.labels = std::move(labels);
    }
  }

  // Edge costs between strategy lists (graph_edge_costs.h).
  GraphEdgeCosts edge_costs{graph, strategies, coster};

  // The redistribution runs per step of the edge from p into c.
  [[nodiscard]] std::int64_t edge_runs(graph::NodeId p, graph::NodeId c) const {
    return plan::redistribution_runs(schedules[static_cast<std::size_t>(graph::index_of(p))],
                                     schedules[static_cast<std::size_t>(graph::index_of(c))],
                                     options.training);
  }

  core::Status add_edges() {
    for (std::size_t v = 0; v < sp.graph_node.size(); ++v) {
      const graph::NodeId id = sp.graph_node[v];
      const graph::Node& node = graph.node(id);
      const OpStrategy& op = strategies.of(id);
      const bool follows = options.followers == FollowerMode::kTie && op.is_follower();
      for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
        const graph::NodeId p = node.inputs[slot];
        const NodeIndex u = index(p);
        if (u < 0) continue;
        DTPLAN_TRY(EdgeMatrix matrix,
                   edge_costs.matrix(p, id, static_cast<std::int32_t>(slot),
                                     sp.label_strategy[static_cast<std::size_t>(u)],
                                     sp.label_strategy[v], EdgeCost::kExact));
        sp.problem.edges.push_back({u, static_cast<NodeIndex>(v), static_cast<std::int32_t>(slot),
                                    solve::Matrix(times(matrix, edge_runs(p, id)))});
        if (follows && static_cast<std::int32_t>(slot) == op.follows_slot) {
          std::vector<LabelIndex> map;
          for (std::int32_t s : at_labels(u, op.follower_map)) {
            map.push_back(label_of(static_cast<NodeIndex>(v), s));
          }
          sp.problem.followers.push_back({static_cast<NodeIndex>(v), u, std::move(map)});
        }
      }
    }
    return {};
  }

  void add_ties() {
    std::map<NodeIndex, std::int32_t> extra_slots;
    std::set<NodeIndex> following;
    for (const solve::Follower& f : sp.problem.followers) following.insert(f.node);
    for (const PairTie& tie : constraints.ties) {
      const NodeIndex leader = index(tie.leader);
      const NodeIndex follower = index(tie.follower);
      if (leader < 0 || follower < 0) continue;
      const OpStrategy& fop = op_of(follower);
      const std::vector<const Strategy*> lop = labelled(leader);
      if (!following.contains(follower)) {
        solve::Follower f{follower, leader, {}};
        for (const Strategy* s : lop) {
          const auto match = labels_with(fop, s->outputs[0]);
          f.label_map.push_back(match.empty() ? -1 : label_of(follower, match.front()));
        }
        sp.problem.followers.push_back(std::move(f));
        following.insert(follower);
        continue;
      }
      const auto inputs = static_cast<std::int32_t>(graph.node(tie.follower).inputs.size());
      const std::int32_t slot = inputs + extra_slots[follower]++;
      std::vector<double> tied;
      const std::vector<const Strategy*> fls = labelled(follower);
      tied.reserve(lop.size() * fls.size());
      for (const Strategy* a : lop) {
        for (const Strategy* b : fls) {
          tied.push_back(a->outputs[0] == b->outputs[0] ? 0.0 : solve::kForbidden);
        }
      }
      sp.problem.edges.push_back({leader, follower, slot, std::move(tied)});
    }
  }

  core::Status add_pins() {
    // Identical layers share their strategy lists and pins: the labels of each (list,
    // placements) are found once.
    std::map<const OpStrategy*, std::vector<std::pair<const Placements*, std::vector<LabelIndex>>>>
        found;
    auto labels_of_pin = [&](const OpStrategy& op, const Placements& placements) {
      auto& list = found[&op];
      for (const auto& [p, labels] : list) {
        if (*p == placements) return labels;
      }
      list.emplace_back(&placements, labels_with(op, placements));
      return list.back().second;
    };
    for (const NodePin& pin : constraints.pins) {
      const NodeIndex v = index(pin.node);
      if (v < 0) continue;
      auto labels = pin.strategy >= 0 ? std::vector<LabelIndex>{pin.strategy}
                                      : labels_of_pin(op_of(v), pin.placements);
      if (pin.strategy >= static_cast<std::int32_t>(op_of(v).size())) {
        return core::Error::unsupported(graph::node_label(graph.node(pin.node).name) +
                                        ": no strategy " + std::to_string(pin.strategy) +
                                        " (it has " + std::to_string(op_of(v).size()) + ")");
      }
      if (labels.empty()) {
        return core::Error::unsupported(graph::node_label(graph.node(pin.node).name) +
                                        ": no strategy lays output 0 out as " +
                                        placement::format_placements(pin.placements));
      }
      std::vector<char> mask(allowed[static_cast<std::size_t>(v)].size(), 0);
      for (LabelIndex l : labels) mask[static_cast<std::size_t>(l)] = 1;
      auto& a = allowed[static_cast<std::size_t>(v)];
      for (std::size_t l = 0; l < a.size(); ++l) a[l] = static_cast<char>(a[l] & mask[l]);
      sp.problem.pins.push_back({v, std::move(labels)});
    }
    return {};
  }

  // UnpinnedOps::kLocal: each op no pin or tie names, fixed where it can run on its producers'
  // layouts (local_ops.h), becomes a pin of its one strategy.
  void add_local_ops() {
    if (constraints.unpinned != UnpinnedOps::kLocal) return;
    std::vector<std::int32_t> fixed(graph.size(), -1);
    std::vector<char> eligible(graph.size(), 0);
    for (std::size_t v = 0; v < allowed.size(); ++v) {
      const auto i = static_cast<std::size_t>(graph::index_of(sp.graph_node[v]));
      eligible[i] = 1;
      fixed[i] = one_layout(op_of(static_cast<NodeIndex>(v)), allowed[v]);
    }
    auto exclude = [&](graph::NodeId id) {
      eligible[static_cast<std::size_t>(graph::index_of(id))] = 0;
    };
    for (const NodePin& pin : constraints.pins) exclude(pin.node);
    for (const PairTie& tie : constraints.ties) {
      exclude(tie.leader);
      exclude(tie.follower);
    }
    const std::vector<std::int32_t> before = fixed;
    fix_local_ops(graph, strategies, eligible, fixed);
    for (std::size_t i = 0; i < graph.size(); ++i) {
      if (fixed[i] < 0 || before[i] >= 0 || eligible[i] == 0) continue;
      const NodeIndex v = sp.problem_node[i];
      auto& a = allowed[static_cast<std::size_t>(v)];
      std::fill(a.begin(), a.end(), 0);
      a[static_cast<std::size_t>(fixed[i])] = 1;
      sp.problem.pins.push_back({v, {fixed[i]}});
    }
  }

  // The smallest entry of `bytes` (per strategy) among the labels `v` may take.
  [[nodiscard]] std::int64_t min_allowed(NodeIndex v,
                                         const std::vector<std::int64_t>& bytes) const {
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    const auto& a = allowed[static_cast<std::size_t>(v)];
    for (std::size_t l = 0; l < a.size(); ++l) {
      if (a[l] != 0) {
        best = std::min(
            best, bytes[static_cast<std::size_t>(strategy_of(v, static_cast<LabelIndex>(l)))]);
      }
    }
    return best == std::numeric_limits<std::int64_t>::max() ? 0 : best;
  }

  // What add_memory() leaves: the problem's memory row, or only the check of the limit against
  // the minimum (before pruning, where copying every strategy's bytes would be wasted).
  enum class MemoryRow : std::uint8_t { kAdd, kCheckOnly };

  core::Status add_memory(MemoryRow use = MemoryRow::kAdd) {
    const bool keep = use == MemoryRow::kAdd;
    std::set<std::int32_t> pinned;
    for (const NodePin& pin : constraints.pins) pinned.insert(graph::index_of(pin.node));
    solve::MemoryRow row;
    if (!constraints.memory_limit_bytes) {
      row.name = "parameters";
      std::int64_t high = 0;
      for (const ParameterMemory& p : sp.memory.parameters) {
        const NodeIndex v = index(p.param);
        if (v < 0 || pinned.contains(graph::index_of(p.param))) continue;
        DTPLAN_TRY(high, core::checked_add(high, min_allowed(v, p.param_bytes), "parameter bytes"));
        row.terms.push_back({v, at_labels(v, p.param_bytes)});
      }
      row.high_bytes = high;
      sp.memory_minimum_bytes = high;
      sp.memory_limit_bytes = high;
      if (keep && !row.terms.empty()) sp.problem.memory.push_back(std::move(row));
      return {};
    }
    row.name = "memory";
    std::int64_t parts[4] = {0, 0, 0, 0};  // parameters, gradients, optimizer, activations
    for (const ParameterMemory& p : sp.memory.parameters) {
      const NodeIndex v = index(p.param);
      if (v < 0) continue;
      std::vector<std::int64_t> bytes(p.param_bytes.size());
      for (std::size_t l = 0; l < bytes.size(); ++l) {
        DTPLAN_TRY(std::int64_t pg, core::checked_add(p.param_bytes[l], p.grad_bytes[l], "bytes"));
        DTPLAN_TRY(bytes[l], core::checked_add(pg, p.optimizer_bytes[l], "parameter state bytes"));
      }
      bytes = at_labels(v, bytes);
      // The parts of the minimum come from the label minimising the whole state.
      std::size_t best = 0;
      for (std::size_t l = 0; l < bytes.size(); ++l) {
        if (allowed[static_cast<std::size_t>(v)][l] != 0 &&
            (allowed[static_cast<std::size_t>(v)][best] == 0 || bytes[l] < bytes[best])) {
          best = l;
        }
      }
      const auto s = static_cast<std::size_t>(strategy_of(v, static_cast<LabelIndex>(best)));
      parts[0] += p.param_bytes[s];
      parts[1] += p.grad_bytes[s];
      parts[2] += p.optimizer_bytes[s];
      row.terms.push_back({v, std::move(bytes)});
    }
    for (const ActivationMemory& a : sp.memory.activations) {
      const NodeIndex v = index(a.node);
      if (v < 0) continue;
      parts[3] += min_allowed(v, a.bytes);
      if (keep) row.terms.push_back({v, at_labels(v, a.bytes)});
    }
    for (const ActivationMemory& a : sp.memory.accumulators) {
      const NodeIndex v = index(a.node);
      if (v < 0) continue;
      parts[1] += min_allowed(v, a.bytes);
      if (keep) row.terms.push_back({v, at_labels(v, a.bytes)});
    }
    std::sort(
        row.terms.begin(), row.terms.end(),
        [](const solve::MemoryTerm& a, const solve::MemoryTerm& b) { return a.node < b.node; });
    std::int64_t minimum = 0;
    for (std::int64_t part : parts) {
      DTPLAN_TRY(minimum, core::checked_add(minimum, part, "memory bytes"));
    }
    sp.memory_minimum_bytes = minimum;
    sp.memory_limit_bytes = *constraints.memory_limit_bytes;
    if (minimum > *constraints.memory_limit_bytes) {
      return core::Error::unsupported(
          "memory limit " + format_bytes_message(*constraints.memory_limit_bytes) +
          " per rank is below the minimum feasible " + format_bytes_message(minimum) +
          " (parameters " + format_bytes_message(parts[0]) + ", gradients " +
          format_bytes_message(parts[1]) + ", optimizer state " + format_bytes_message(parts[2]) +
          ", activations " + format_bytes_message(parts[3]) +
          ", every tensor at its smallest shard)");
    }
    row.high_bytes = *constraints.memory_limit_bytes;
    if (keep) sp.problem.memory.push_back(std::move(row));
    return {};
  }

  // LabelPruning::kBound: prune_by_bound over every graph edge, in strategy indices (before
  // restrict_labels renumbers them).
  void prune_labels() {
    std::vector<PruneNode> nodes(sp.graph_node.size());
    for (std::size_t v = 0; v < nodes.size(); ++v) nodes[v].unary = *unary[v];
    auto terms = [&](graph::NodeId id) -> std::vector<std::span<const std::int64_t>>* {
      const NodeIndex v = index(id);
      return v < 0 ? nullptr : &nodes[static_cast<std::size_t>(v)].bytes;
    };
    for (const ParameterMemory& p : sp.memory.parameters) {
      if (auto* t = terms(p.param))
        t->insert(t->end(), {p.param_bytes, p.grad_bytes, p.optimizer_bytes});
    }
    for (const auto* list : {&sp.memory.activations, &sp.memory.accumulators}) {
      for (const ActivationMemory& a : *list) {
        if (auto* t = terms(a.node)) t->push_back(a.bytes);
      }
    }
    fix_tied_followers(nodes);
    GraphEdgeSource source{*this, {}};
    std::vector<PruneEdge> edges;
    for (std::size_t v = 0; v < sp.graph_node.size(); ++v) {
      const graph::NodeId id = sp.graph_node[v];
      const graph::Node& node = graph.node(id);
      for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
        const graph::NodeId p = node.inputs[slot];
        const NodeIndex u = index(p);
        if (u < 0) continue;
        edges.push_back({u, static_cast<NodeIndex>(v), static_cast<double>(edge_runs(p, id))});
        source.add({p, id, static_cast<std::int32_t>(slot)});
      }
    }
    sp.labels_pruned = prune_by_bound(nodes, edges, source, allowed).dropped;
  }

  // Marks the tie endpoints for prune_labels, but first applies each tie whose leader has one
  // allowed strategy and whose follower no other tie names: add_ties would map that strategy
  // to the follower's first strategy with the same output 0, so the follower allows only it
  // and is free of the tie (a tie the leader's strategy leaves no match for stays a tie).
  void fix_tied_followers(std::vector<PruneNode>& nodes) {
    std::map<NodeIndex, std::int32_t> ties_of;
    for (const PairTie& tie : constraints.ties) ++ties_of[index(tie.follower)];
    for (const PairTie& tie : constraints.ties) {
      const NodeIndex leader = index(tie.leader);
      const NodeIndex follower = index(tie.follower);
      if (leader < 0 || follower < 0) continue;
      const auto& a = allowed[static_cast<std::size_t>(leader)];
      if (ties_of[follower] == 1 && std::count(a.begin(), a.end(), 1) == 1) {
        const auto s = static_cast<std::size_t>(std::find(a.begin(), a.end(), 1) - a.begin());
        const auto match = labels_with(op_of(follower), op_of(leader).strategies[s].outputs[0]);
        auto& f = allowed[static_cast<std::size_t>(follower)];
        if (!match.empty() && f[static_cast<std::size_t>(match.front())] != 0) {
          std::fill(f.begin(), f.end(), 0);
          f[static_cast<std::size_t>(match.front())] = 1;
          continue;
        }
      }
      nodes[static_cast<std::size_t>(leader)].tied = true;
      nodes[static_cast<std::size_t>(follower)].tied = true;
    }
  }

  // Edge costs for prune_labels, in strategy indices, memoised like add_edges' matrices.
  struct GraphEdgeSource final : PruneEdgeSource {
    struct Slot {
      graph::NodeId producer;
      graph::NodeId consumer;
      std::int32_t slot;
    };
    Builder& b;
    std::vector<Slot> slots;
    GraphEdgeSource(Builder& builder, std::vector<Slot> s) : b(builder), slots(std::move(s)) {}

    core::Result<EdgeMatrix> matrix(std::size_t e, const std::vector<std::int32_t>& us,
                                    const std::vector<std::int32_t>& vs) override {
      const Slot& s = slots[e];
      return b.edge_costs.matrix(s.producer, s.consumer, s.slot, us, vs, EdgeCost::kExact);
    }
    core::Result<EdgeMatrix> cheapest(std::size_t e, const std::vector<std::int32_t>& us,
                                      const std::vector<std::int32_t>& vs) override {
      const Slot& s = slots[e];
      return b.edge_costs.matrix(s.producer, s.consumer, s.slot, us, vs, EdgeCost::kCheapestBound);
    }
    core::Result<std::shared_ptr<const SeededBounds>> seeded(
        std::size_t e, const std::vector<std::int32_t>& us, std::span<const double> seeds,
        const std::vector<std::int32_t>& vs) override {
      const Slot& s = slots[e];
      return b.edge_costs.seeded(s.producer, s.consumer, s.slot, us, seeds, vs);
    }
    // Adds an edge, in the class of the edges before it with the same memo key.
    void add(const Slot& s) {
      const EdgeMatrixKey k = b.edge_costs.edge_class(s.producer, s.consumer, s.slot);
      const auto at = ids.try_emplace({k.producer, k.output, k.consumer, k.slot},
                                      static_cast<std::int64_t>(ids.size()));
      slots.push_back(s);
      classes.push_back(at.first->second);
    }
    [[nodiscard]] std::int64_t edge_class(std::size_t e) const override { return classes[e]; }
    std::vector<std::int64_t> classes;                        // per edge
    std::map<std::array<std::int32_t, 4>, std::int64_t> ids;  // per memo key, its class
  };

  void add_repeats() {
    std::map<std::int32_t, std::vector<NodeIndex>> by_layer;
    for (std::size_t v = 0; v < sp.graph_node.size(); ++v) {
      const std::int32_t layer = graph.node(sp.graph_node[v]).layer;
      if (layer >= 0) by_layer[layer].push_back(static_cast<NodeIndex>(v));
    }
    for (const graph::RepeatGroup& group : graph.repeats()) {
      solve::RepeatGroup r;
      for (std::int32_t layer : group.layers) r.blocks.push_back(by_layer[layer]);
      sp.problem.repeats.push_back(std::move(r));
    }
  }
};

// "1073741824 B (1.00 GiB)": how memory figures appear in messages.
std::string format_bytes_message(std::int64_t bytes) {
  return std::to_string(bytes) + " B (" +
         core::format_fixed(static_cast<double>(bytes) / static_cast<double>(1LL << 30), 2) +
         " GiB)";
}

}  // namespace

core::Result<SelectionProblem> export_problem(const graph::Graph& graph,
                                              const GraphStrategies& strategies,
                                              const Constraints& constraints, EdgeCoster& coster,
                                              const ExportOptions& options) {
  Builder b{graph, strategies, constraints, coster, options, {}, {}};
  b.schedules = op_schedules(graph, options.training);
  b.add_nodes();
  DTPLAN_CHECK(b.add_pins());
  b.add_local_ops();
  b.add_repeats();
  DTPLAN_TRY(b.sp.memory, memory_terms(graph, strategies, options.training));
  if (options.labels == LabelScope::kPinned) {
    if (options.pruning == LabelPruning::kBound && options.followers == FollowerMode::kFree) {
      // A limit below the minimum fails before the bound prices anything: the row is built
      // over every strategy here and again over the labels below (the bound keeps a strategy
      // at each node's smallest memory terms, so the minimum is the same).
      DTPLAN_CHECK(b.add_memory(Builder::MemoryRow::kCheckOnly));
      b.prune_labels();
    }
    b.restrict_labels();
  }
  b.add_costs();
  // The memory row reads only the nodes' allowed labels, which edges and ties leave as they are:
  // a limit below the minimum fails here, before any edge is priced.
  DTPLAN_CHECK(b.add_memory());
  DTPLAN_CHECK(b.add_edges());
  b.add_ties();
  return std::move(b.sp);
}

core::Result<std::vector<std::int32_t>> map_solution(const SelectionProblem& sp,
                                                     std::span<const solve::LabelIndex> labels) {
  if (labels.size() != sp.graph_node.size()) {
    return core::Error::bad_input("solution: " + std::to_string(labels.size()) +
                                  " labels for a problem of " +
                                  std::to_string(sp.graph_node.size()) + " nodes");
  }
  std::vector<std::int32_t> choice(sp.problem_node.size(), -1);
  for (std::size_t v = 0; v < labels.size(); ++v) {
    const solve::LabelIndex l = labels[v];
    if (l < 0 || l >= sp.problem.labels(static_cast<solve::NodeIndex>(v))) {
      return core::Error::bad_input("solution: label " + std::to_string(l) + " of node '" +
                                    sp.problem.nodes[v].name + "' is out of range");
    }
    const bool relabelled = v < sp.label_strategy.size() && !sp.label_strategy[v].empty();
    choice[static_cast<std::size_t>(graph::index_of(sp.graph_node[v]))] =
        relabelled ? sp.label_strategy[v][static_cast<std::size_t>(l)] : l;
  }
  return choice;
}

std::vector<solve::LabelIndex> labels_of(const SelectionProblem& sp,
                                         std::span<const std::int32_t> choice) {
  std::vector<solve::LabelIndex> labels;
  labels.reserve(sp.graph_node.size());
  for (std::size_t v = 0; v < sp.graph_node.size(); ++v) {
    const std::int32_t s = choice[static_cast<std::size_t>(graph::index_of(sp.graph_node[v]))];
    const auto* list = v < sp.label_strategy.size() ? &sp.label_strategy[v] : nullptr;
    if (list == nullptr || list->empty()) {
      labels.push_back(s);
      continue;
    }
    const auto it = std::lower_bound(list->begin(), list->end(), s);
    labels.push_back(
        it != list->end() && *it == s ? static_cast<solve::LabelIndex>(it - list->begin()) : -1);
  }
  return labels;
}

}  // namespace dtplan::strategy
