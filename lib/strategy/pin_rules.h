#pragma once
// Pin rules (`dtplan plan --parallelize FILE|torchtitan`): a user's parallel plan as hard
// constraints of the strategy selection. Each rule names the graph nodes it applies to by a
// regular expression that must match a node's whole name (ECMAScript syntax, std::regex_match),
// and fixes either output 0's placements (a parameter's placements are its storage layout) or
// one strategy index of the node's enumeration. Every node no rule matches stays free, so the
// solver finds the best execution of the pinned plan. docs/parallelize.md has the file format.
//
//   PinSet pins{"--parallelize p.json", {{"wq", "layers\\.\\d+\\.attention\\.wq\\.weight",
//                                         PinKind::kPlacements, {S(0), R}}}};
//   DTPLAN_TRY(PinMatch m, apply_pin_rules(graph, strategies, pins, constraints));
//   // constraints.pins now holds one NodePin per wq weight (and the defaults elsewhere)
//
// Errors name the source and the rule ("--parallelize p.json: rule 'wq': ..."): kBadInput for
// a regex that does not compile or matches no node, a strategy index out of range; kUnsupported
// for a node that cannot take the pinned placements, two rules pinning one node differently, or
// pins that leave no feasible plan (check_pin_conflicts, pin_infeasible).

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "graph/graph.h"
#include "plan/plan.h"
#include "solve/problem.h"
#include "strategy/constraints.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy {

// What a rule fixes on each node it matches.
enum class PinKind : std::uint8_t {
  kPlacements,  // output 0 laid out as `placements`
  kStrategy,    // exactly strategy `strategy` of the node's enumeration
};

struct PinRule {
  std::string name;     // unique within its set; errors quote it
  std::string pattern;  // matched against whole node names
  PinKind kind = PinKind::kPlacements;
  Placements placements;      // kPlacements: one per mesh dim
  std::int32_t strategy = 0;  // kStrategy: an index into the node's strategies
  bool operator==(const PinRule&) const = default;
};

struct PinSet {
  std::string source;  // how errors name the set: "--parallelize p.json"
  std::vector<PinRule> rules;
  // Copied to Constraints::unpinned by apply_pin_rules: torchtitan's plan runs the ops between
  // its rules on local tensors (kLocal); a user's file leaves them to the solver (kFree).
  UnpinnedOps unpinned = UnpinnedOps::kFree;
  [[nodiscard]] bool empty() const { return rules.empty(); }
  bool operator==(const PinSet&) const = default;
};

// Which rule pinned which node.
struct PinMatch {
  std::vector<std::int32_t> rule_of_node;  // per graph node: rule index or -1
  std::vector<std::int64_t> matched;       // per rule: the nodes it matched
};

// Whether some rule pins a _StridedShard (the plan then needs EnumerateOptions::strided_params).
bool uses_strided_shard(const PinSet& pins);

// A pattern that matches exactly `name` (every character but [A-Za-z0-9_] escaped).
// Example: literal_pattern("layers.0.wq") == "layers\\.0\\.wq".
std::string literal_pattern(std::string_view name);

// The data layout of `plan` as pins: one rule per model input, output and tangent (tokens,
// the logits, their tangent), named after the node and pinning the placements `plan` gave it.
// --compare-optimal solves the free optimum with these, so both plans read and write the data
// the same way (a pinned plan may shard the batch over more mesh dims than the defaults do).
PinSet data_layout_pins(const plan::Plan& plan, std::string source);

// Adds one NodePin per matched node to `constraints`, replacing a default pin on that node, and
// sets constraints.unpinned to pins.unpinned.
// @post errors as listed above; on success every matched node offers its pin.
core::Result<PinMatch> apply_pin_rules(const graph::Graph& graph, const GraphStrategies& strategies,
                                       const PinSet& pins, Constraints& constraints);

// A pairwise proof of infeasibility among the pinned nodes of `problem` (after export): an edge
// or follower whose every allowed pair is forbidden. The error (kUnsupported) names the rules at
// both ends. `graph_node` maps problem nodes to graph nodes (SelectionProblem::graph_node).
core::Status check_pin_conflicts(const solve::Problem& problem,
                                 const std::vector<graph::NodeId>& graph_node,
                                 const PinMatch& match, const PinSet& pins);

// The error for a solver that found no feasible plan under pins: `cause` with every rule that
// matched a node named (no pairwise conflict explains it, so all of them are involved).
core::Error pin_infeasible(const core::Error& cause, const PinMatch& match, const PinSet& pins);

}  // namespace dtplan::strategy
