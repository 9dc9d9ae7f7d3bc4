#include "solve/problem.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>

#include "core/checked.h"

namespace dtplan::solve {

namespace {

using core::Error;
using core::Status;

std::string node_ref(const Problem& p, NodeIndex n) {
  return "node " + std::to_string(n) + " '" + p.nodes[static_cast<std::size_t>(n)].name + "'";
}

bool valid_node(const Problem& p, NodeIndex n) {
  return n >= 0 && static_cast<std::size_t>(n) < p.nodes.size();
}

Status check_costs(const std::vector<double>& costs, const std::string& what) {
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (std::isnan(costs[i]) || costs[i] == -kForbidden) {
      return Error::bad_input(what + ": cost " + std::to_string(i) + " is " +
                              (std::isnan(costs[i]) ? "NaN" : "-inf"));
    }
  }
  return {};
}

Status check_nodes_and_edges(const Problem& p) {
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const auto n = static_cast<NodeIndex>(i);
    if (p.nodes[i].cost_us.empty()) return Error::bad_input(node_ref(p, n) + ": has no labels");
    DTPLAN_CHECK(check_costs(p.nodes[i].cost_us, node_ref(p, n)));
  }
  std::set<std::pair<NodeIndex, std::int32_t>> slots;
  std::unordered_set<const double*> checked;
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    const Edge& edge = p.edges[e];
    const std::string what = "edge " + std::to_string(e);
    if (!valid_node(p, edge.from) || !valid_node(p, edge.to)) {
      return Error::bad_input(what + ": endpoint out of range (" + std::to_string(edge.from) +
                              " -> " + std::to_string(edge.to) + ", " +
                              std::to_string(p.nodes.size()) + " nodes)");
    }
    const std::string named =
        what + " (" + p.nodes[edge.from].name + " -> " + p.nodes[edge.to].name + ")";
    if (edge.from == edge.to) return Error::bad_input(named + ": connects a node to itself");
    const std::size_t expected =
        p.nodes[edge.from].cost_us.size() * p.nodes[edge.to].cost_us.size();
    if (edge.cost_us.size() != expected) {
      return Error::bad_input(named + ": matrix has " + std::to_string(edge.cost_us.size()) +
                              " entries, expected " + std::to_string(expected));
    }
    if (!slots.insert({edge.to, edge.slot}).second) {
      return Error::bad_input(named + ": slot " + std::to_string(edge.slot) +
                              " of the consumer is fed twice");
    }
    // A matrix shared between edges is checked once (at its first edge).
    if (checked.insert(edge.cost_us.data()).second) {
      DTPLAN_CHECK(check_costs(edge.cost_us.values(), named));
    }
  }
  return {};
}

Status check_followers_and_pins(const Problem& p) {
  std::vector<NodeIndex> leader(p.nodes.size(), -1);
  for (std::size_t f = 0; f < p.followers.size(); ++f) {
    const Follower& fol = p.followers[f];
    const std::string what = "follower " + std::to_string(f);
    if (!valid_node(p, fol.node) || !valid_node(p, fol.leader) || fol.node == fol.leader) {
      return Error::bad_input(what + ": needs two distinct valid nodes (" +
                              std::to_string(fol.node) + " follows " + std::to_string(fol.leader) +
                              ")");
    }
    if (leader[fol.node] != -1)
      return Error::bad_input(what + ": " + node_ref(p, fol.node) +
                              " already follows another node");
    leader[fol.node] = fol.leader;
    if (fol.label_map.size() != static_cast<std::size_t>(p.labels(fol.leader))) {
      return Error::bad_input(what + ": label map has " + std::to_string(fol.label_map.size()) +
                              " entries, leader " + node_ref(p, fol.leader) + " has " +
                              std::to_string(p.labels(fol.leader)) + " labels");
    }
    for (LabelIndex l : fol.label_map) {
      if (l < -1 || l >= p.labels(fol.node)) {
        return Error::bad_input(what + ": label map entry " + std::to_string(l) +
                                " is not -1 or a "
                                "label of " +
                                node_ref(p, fol.node));
      }
    }
  }
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {  // follower chains must end (no cycles)
    NodeIndex at = static_cast<NodeIndex>(i);
    for (std::size_t steps = 0; at != -1; ++steps) {
      if (steps > p.nodes.size()) {
        return Error::bad_input("followers: " + node_ref(p, static_cast<NodeIndex>(i)) +
                                " is on a cycle of followers");
      }
      at = leader[at];
    }
  }
  for (std::size_t k = 0; k < p.pins.size(); ++k) {
    const Pin& pin = p.pins[k];
    const std::string what = "pin " + std::to_string(k);
    if (!valid_node(p, pin.node)) return Error::bad_input(what + ": node out of range");
    for (LabelIndex l : pin.labels) {
      if (l < 0 || l >= p.labels(pin.node)) {
        return Error::bad_input(what + ": label " + std::to_string(l) + " is not a label of " +
                                node_ref(p, pin.node));
      }
    }
  }
  return {};
}

Status check_memory(const Problem& p) {
  for (const MemoryRow& row : p.memory) {
    const std::string what = "memory row '" + row.name + "'";
    if (row.low_bytes > row.high_bytes) {
      return Error::bad_input(what + ": low " + std::to_string(row.low_bytes) + " above high " +
                              std::to_string(row.high_bytes));
    }
    std::set<NodeIndex> seen;
    std::int64_t max_sum = 0;
    for (const MemoryTerm& term : row.terms) {
      if (!valid_node(p, term.node)) return Error::bad_input(what + ": node out of range");
      if (!seen.insert(term.node).second) {
        return Error::bad_input(what + ": " + node_ref(p, term.node) + " appears twice");
      }
      if (term.bytes.size() != static_cast<std::size_t>(p.labels(term.node))) {
        return Error::bad_input(what + ": " + node_ref(p, term.node) + " has " +
                                std::to_string(term.bytes.size()) + " byte counts, expected " +
                                std::to_string(p.labels(term.node)));
      }
      std::int64_t most = 0;
      for (std::int64_t b : term.bytes) {
        if (b < 0)
          return Error::bad_input(what + ": " + node_ref(p, term.node) +
                                  " has a negative byte count");
        most = std::max(most, b);
      }
      DTPLAN_TRY(max_sum, core::checked_add(max_sum, most, what + " total bytes"));
    }
  }
  return {};
}

Status check_repeats(const Problem& p) {
  std::vector<char> used(p.nodes.size(), 0);
  for (std::size_t g = 0; g < p.repeats.size(); ++g) {
    const RepeatGroup& group = p.repeats[g];
    const std::string what = "repeat group " + std::to_string(g);
    for (std::size_t b = 0; b < group.blocks.size(); ++b) {
      const auto& block = group.blocks[b];
      if (block.size() != group.blocks[0].size()) {
        return Error::bad_input(what + ": block " + std::to_string(b) + " has " +
                                std::to_string(block.size()) + " nodes, block 0 has " +
                                std::to_string(group.blocks[0].size()));
      }
      for (std::size_t pos = 0; pos < block.size(); ++pos) {
        const NodeIndex n = block[pos];
        if (!valid_node(p, n)) return Error::bad_input(what + ": node out of range");
        if (used[n]) return Error::bad_input(what + ": " + node_ref(p, n) + " is in two blocks");
        used[n] = 1;
        if (p.labels(n) != p.labels(group.blocks[0][pos])) {
          return Error::bad_input(what + ": position " + std::to_string(pos) + " has " +
                                  std::to_string(p.labels(n)) + " labels in block " +
                                  std::to_string(b) + " and " +
                                  std::to_string(p.labels(group.blocks[0][pos])) + " in block 0");
        }
      }
    }
  }
  return {};
}

}  // namespace

core::Status validate(const Problem& problem) {
  DTPLAN_CHECK(check_nodes_and_edges(problem));
  DTPLAN_CHECK(check_followers_and_pins(problem));
  DTPLAN_CHECK(check_memory(problem));
  return check_repeats(problem);
}

bool meets_memory(const std::vector<MemoryRow>& rows, const std::vector<LabelIndex>& labels) {
  for (const MemoryRow& row : rows) {
    std::int64_t total = 0;
    for (const MemoryTerm& t : row.terms) total += t.bytes[labels[t.node]];
    if (total < row.low_bytes || total > row.high_bytes) return false;
  }
  return true;
}

ProblemSize problem_size(const Problem& problem) {
  ProblemSize size{static_cast<std::int64_t>(problem.nodes.size()),
                   static_cast<std::int64_t>(problem.edges.size()), 0};
  for (const Node& n : problem.nodes) size.labels += static_cast<std::int64_t>(n.cost_us.size());
  return size;
}

}  // namespace dtplan::solve
