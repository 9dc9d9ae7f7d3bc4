#include "solve/evaluate.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace dtplan::solve {

namespace {

std::string label_ref(const Problem& p, NodeIndex n, LabelIndex l) {
  return "'" + p.nodes[static_cast<std::size_t>(n)].name + "'=" + std::to_string(l);
}

}  // namespace

std::string_view violation_name(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kForbiddenLabel:
      return "forbidden_label";
    case ViolationKind::kForbiddenPair:
      return "forbidden_pair";
    case ViolationKind::kPin:
      return "pin";
    case ViolationKind::kFollower:
      return "follower";
    case ViolationKind::kMemoryLow:
      return "memory_low";
    case ViolationKind::kMemoryHigh:
      return "memory_high";
  }
  return "unknown";
}

double objective_us(const Problem& problem, std::span<const LabelIndex> labels) {
  double unary = 0;
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    unary += problem.nodes[i].cost_us[static_cast<std::size_t>(labels[i])];
  }
  double pairwise = 0;
  for (const Edge& e : problem.edges)
    pairwise += pair_cost(problem, e, labels[e.from], labels[e.to]);
  return unary + pairwise;
}

double trivial_lower_bound_us(const Problem& problem) {
  double unary = 0;
  for (const Node& n : problem.nodes)
    unary += *std::min_element(n.cost_us.begin(), n.cost_us.end());
  double pairwise = 0;
  std::unordered_map<const double*, double> least;  // per shared matrix (see matrix.h)
  for (const Edge& e : problem.edges) {
    auto [it, added] = least.try_emplace(e.cost_us.data(), 0.0);
    if (added) it->second = *std::min_element(e.cost_us.begin(), e.cost_us.end());
    pairwise += it->second;
  }
  return unary + pairwise;
}

core::Result<Evaluation> evaluate(const Problem& problem, std::span<const LabelIndex> labels) {
  if (labels.size() != problem.nodes.size()) {
    return core::Error::bad_input("solution has " + std::to_string(labels.size()) +
                                  " labels, the problem has " +
                                  std::to_string(problem.nodes.size()) + " nodes");
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= problem.labels(static_cast<NodeIndex>(i))) {
      return core::Error::bad_input("solution: label " + std::to_string(labels[i]) + " of node '" +
                                    problem.nodes[i].name + "' is out of range (" +
                                    std::to_string(problem.labels(static_cast<NodeIndex>(i))) +
                                    " labels)");
    }
  }
  Evaluation ev;
  ev.node_us.resize(problem.nodes.size());
  ev.edge_us.resize(problem.edges.size());
  std::vector<Violation> by_kind[6];
  auto add = [&](ViolationKind kind, std::size_t index, std::string message) {
    by_kind[static_cast<int>(kind)].push_back(
        {kind, static_cast<std::int32_t>(index), std::move(message)});
  };
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    ev.node_us[i] = problem.nodes[i].cost_us[static_cast<std::size_t>(labels[i])];
    ev.unary_us += ev.node_us[i];
    if (ev.node_us[i] == kForbidden) {
      add(ViolationKind::kForbiddenLabel, i,
          "label " + label_ref(problem, static_cast<NodeIndex>(i), labels[i]) + " is forbidden");
    }
  }
  for (std::size_t e = 0; e < problem.edges.size(); ++e) {
    const Edge& edge = problem.edges[e];
    ev.edge_us[e] = pair_cost(problem, edge, labels[edge.from], labels[edge.to]);
    ev.pairwise_us += ev.edge_us[e];
    if (ev.edge_us[e] == kForbidden) {
      add(ViolationKind::kForbiddenPair, e,
          "edge " + std::to_string(e) + ": pair " +
              label_ref(problem, edge.from, labels[edge.from]) + " -> " +
              label_ref(problem, edge.to, labels[edge.to]) + " is forbidden");
    }
  }
  ev.total_us = ev.unary_us + ev.pairwise_us;
  for (std::size_t k = 0; k < problem.pins.size(); ++k) {
    const Pin& pin = problem.pins[k];
    if (std::find(pin.labels.begin(), pin.labels.end(), labels[pin.node]) == pin.labels.end()) {
      add(ViolationKind::kPin, k,
          "pin " + std::to_string(k) + ": " + label_ref(problem, pin.node, labels[pin.node]) +
              " is not an allowed label");
    }
  }
  for (std::size_t f = 0; f < problem.followers.size(); ++f) {
    const Follower& fol = problem.followers[f];
    const LabelIndex want = fol.label_map[static_cast<std::size_t>(labels[fol.leader])];
    if (want != labels[fol.node]) {
      add(ViolationKind::kFollower, f,
          "follower " + std::to_string(f) + ": " + label_ref(problem, fol.node, labels[fol.node]) +
              " with leader " + label_ref(problem, fol.leader, labels[fol.leader]) +
              (want < 0 ? " (leader label not allowed)" : ", expected " + std::to_string(want)));
    }
  }
  for (std::size_t r = 0; r < problem.memory.size(); ++r) {
    const MemoryRow& row = problem.memory[r];
    std::int64_t total = 0;  // validate() guarantees the sum of maxima fits
    for (const MemoryTerm& t : row.terms)
      total += t.bytes[static_cast<std::size_t>(labels[t.node])];
    ev.memory_bytes.push_back(total);
    if (total < row.low_bytes) {
      add(ViolationKind::kMemoryLow, r,
          "memory row '" + row.name + "': " + std::to_string(total) + " bytes below low " +
              std::to_string(row.low_bytes));
    }
    if (total > row.high_bytes) {
      add(ViolationKind::kMemoryHigh, r,
          "memory row '" + row.name + "': " + std::to_string(total) + " bytes above high " +
              std::to_string(row.high_bytes));
    }
  }
  for (auto& list : by_kind) {
    for (auto& v : list) ev.violations.push_back(std::move(v));
  }
  return ev;
}

}  // namespace dtplan::solve
