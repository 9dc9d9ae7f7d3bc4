#include "strategy/pin_rules.h"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <string_view>

#include "core/strings.h"
#include "placement/placement_text.h"

namespace dtplan::strategy {

namespace {

std::string rule_prefix(const PinSet& pins, std::size_t rule) {
  return pins.source + ": rule '" + pins.rules[rule].name + "'";
}

std::string pin_text(const PinRule& rule) {
  return rule.kind == PinKind::kStrategy ? "strategy " + std::to_string(rule.strategy)
                                         : placement::format_placements(rule.placements);
}

// What every whole-name match of an ECMAScript pattern ends with, and whether that literal is the
// whole pattern: its trailing plain and escaped punctuation characters when no '|' lies outside a
// group (else nothing). Lets apply_pin_rules skip the regex for most names.
struct LiteralTail {
  std::string suffix;
  bool whole = false;
};

bool is_regex_syntax(char c) {
  return std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos;
}

LiteralTail literal_tail(std::string_view pattern) {
  int depth = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' || c == ')') {
      depth += c == '(' ? 1 : -1;
    } else if (c == '|' && depth == 0) {
      return {};
    }
  }
  LiteralTail out;
  std::size_t end = pattern.size();
  while (end > 0) {
    const char c = pattern[end - 1];
    std::size_t slashes = 0;
    while (slashes + 1 < end && pattern[end - 2 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 1) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0) break;  // \d, \w, \b, \1, ...
      out.suffix.insert(out.suffix.begin(), c);
      end -= 2;
    } else {
      if (is_regex_syntax(c)) break;
      out.suffix.insert(out.suffix.begin(), c);
      end -= 1;
    }
  }
  out.whole = end == 0;
  return out;
}

NodePin node_pin(graph::NodeId id, const PinRule& rule) {
  if (rule.kind == PinKind::kStrategy) return {id, {}, rule.strategy};
  return {id, rule.placements, -1};
}

// Checks that `op` can take `rule`'s pin; the error names the rule and the node.
core::Status check_offered(const PinSet& pins, std::size_t r, const graph::Node& node,
                           const OpStrategy& op) {
  const PinRule& rule = pins.rules[r];
  if (rule.kind == PinKind::kStrategy) {
    if (rule.strategy >= 0 && static_cast<std::size_t>(rule.strategy) < op.size()) return {};
    return core::Error::bad_input(rule_prefix(pins, r) + ": " + graph::node_label(node.name) +
                                  " has " + std::to_string(op.size()) + " strategies (0-" +
                                  std::to_string(op.size() - 1) + "), not " +
                                  std::to_string(rule.strategy));
  }
  if (offers(op, rule.placements)) return {};
  return core::Error::unsupported(rule_prefix(pins, r) + ": " + graph::node_label(node.name) +
                                  " cannot be laid out as " + pin_text(rule) +
                                  " on this mesh (no strategy of it has that output)");
}

// The rules pinning the ends of a conflicting edge, in rule order, as "'a' and 'b'".
std::string rule_names(const PinSet& pins, std::set<std::int32_t> rules) {
  std::vector<std::string> names;
  for (std::int32_t r : rules)
    names.push_back("'" + pins.rules[static_cast<std::size_t>(r)].name + "'");
  return core::join(names, ", ");
}

}  // namespace

std::string literal_pattern(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!plain) out += '\\';
    out += c;
  }
  return out;
}

PinSet data_layout_pins(const plan::Plan& plan, std::string source) {
  PinSet out;
  out.source = std::move(source);
  for (const plan::PlanOp& op : plan.ops) {
    if (op.role != core::OpRole::kInput && op.role != core::OpRole::kOutput &&
        op.role != core::OpRole::kTangent) {
      continue;
    }
    out.rules.push_back(
        {op.name, literal_pattern(op.name), PinKind::kPlacements, op.placements, 0});
  }
  return out;
}

bool uses_strided_shard(const PinSet& pins) {
  for (const PinRule& rule : pins.rules) {
    for (const placement::Placement& p : rule.placements) {
      if (p.is_strided_shard()) return true;
    }
  }
  return false;
}

core::Result<PinMatch> apply_pin_rules(const graph::Graph& graph, const GraphStrategies& strategies,
                                       const PinSet& pins, Constraints& constraints) {
  PinMatch match;
  match.rule_of_node.assign(graph.size(), -1);
  match.matched.assign(pins.rules.size(), 0);
  for (std::size_t r = 0; r < pins.rules.size(); ++r) {
    const PinRule& rule = pins.rules[r];
    std::regex re;
    try {
      re = std::regex(rule.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return core::Error::bad_input(rule_prefix(pins, r) + ": regex '" + rule.pattern +
                                    "' does not compile (" + e.what() + ")");
    }
    const LiteralTail tail = literal_tail(rule.pattern);
    const OpStrategy* offered = nullptr;  // the last list checked (identical layers share one)
    for (std::size_t i = 0; i < graph.size(); ++i) {
      const graph::Node& node = graph.nodes()[i];
      const OpStrategy& op = strategies.of(graph::node_id(i));
      if (op.rule == Rule::kOutput || op.strategies.empty()) continue;
      if (!node.name.ends_with(tail.suffix)) continue;
      if (tail.whole ? node.name != tail.suffix : !std::regex_match(node.name, re)) continue;
      if (&op != offered) DTPLAN_CHECK(check_offered(pins, r, node, op));
      offered = &op;
      std::int32_t& owner = match.rule_of_node[i];
      if (owner >= 0 && node_pin(graph::node_id(i), pins.rules[static_cast<std::size_t>(owner)]) !=
                            node_pin(graph::node_id(i), rule)) {
        return core::Error::unsupported(rule_prefix(pins, r) + ": " + graph::node_label(node.name) +
                                        " is pinned to " + pin_text(rule) + " here and to " +
                                        pin_text(pins.rules[static_cast<std::size_t>(owner)]) +
                                        " by rule '" +
                                        pins.rules[static_cast<std::size_t>(owner)].name + "'");
      }
      if (owner < 0) owner = static_cast<std::int32_t>(r);
      ++match.matched[r];
    }
    if (match.matched[r] == 0) {
      return core::Error::bad_input(rule_prefix(pins, r) + ": regex '" + rule.pattern +
                                    "' matches no op or parameter of the model (it must match a "
                                    "whole name, e.g. layers\\.0\\.attention\\.wq\\.weight)");
    }
  }
  // User pins replace the defaults on their nodes; the list stays in graph order.
  std::map<std::int32_t, NodePin> by_node;
  for (NodePin& p : constraints.pins) by_node.emplace(graph::index_of(p.node), std::move(p));
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const std::int32_t r = match.rule_of_node[i];
    if (r < 0) continue;
    by_node[static_cast<std::int32_t>(i)] =
        node_pin(graph::node_id(i), pins.rules[static_cast<std::size_t>(r)]);
  }
  constraints.pins.clear();
  for (auto& [index, pin] : by_node) constraints.pins.push_back(std::move(pin));
  constraints.unpinned = pins.unpinned;
  return match;
}

core::Status check_pin_conflicts(const solve::Problem& problem,
                                 const std::vector<graph::NodeId>& graph_node,
                                 const PinMatch& match, const PinSet& pins) {
  // Allowed labels per problem node (all where unpinned) and the rule pinning it.
  const std::size_t n = problem.nodes.size();
  std::vector<std::vector<char>> allowed(n);
  std::vector<std::int32_t> rule(n, -1);
  for (std::size_t v = 0; v < n; ++v) {
    allowed[v].assign(problem.nodes[v].cost_us.size(), 1);
    rule[v] = match.rule_of_node[static_cast<std::size_t>(graph::index_of(graph_node[v]))];
  }
  for (const solve::Pin& pin : problem.pins) {
    std::vector<char> keep(allowed[static_cast<std::size_t>(pin.node)].size(), 0);
    for (solve::LabelIndex l : pin.labels) keep[static_cast<std::size_t>(l)] = 1;
    auto& a = allowed[static_cast<std::size_t>(pin.node)];
    for (std::size_t l = 0; l < a.size(); ++l) a[l] = static_cast<char>(a[l] & keep[l]);
  }
  auto conflict = [&](solve::NodeIndex u, solve::NodeIndex v) -> core::Error {
    std::set<std::int32_t> rules;
    for (solve::NodeIndex x : {u, v}) {
      if (rule[static_cast<std::size_t>(x)] >= 0) rules.insert(rule[static_cast<std::size_t>(x)]);
    }
    return core::Error::unsupported(
        pins.source + ": no feasible plan: rule" + (rules.size() > 1 ? "s " : " ") +
        rule_names(pins, rules) +
        " conflict: " + graph::node_label(problem.nodes[static_cast<std::size_t>(u)].name) +
        " and " + graph::node_label(problem.nodes[static_cast<std::size_t>(v)].name) +
        " have no allowed pair of strategies");
  };
  for (const solve::Edge& e : problem.edges) {
    const auto from = static_cast<std::size_t>(e.from);
    const auto to = static_cast<std::size_t>(e.to);
    if (rule[from] < 0 && rule[to] < 0) continue;
    bool any = false;
    for (std::size_t a = 0; a < allowed[from].size() && !any; ++a) {
      for (std::size_t b = 0; b < allowed[to].size() && !any; ++b) {
        any = allowed[from][a] != 0 && allowed[to][b] != 0 &&
              solve::pair_cost(problem, e, static_cast<solve::LabelIndex>(a),
                               static_cast<solve::LabelIndex>(b)) < solve::kForbidden;
      }
    }
    if (!any) return conflict(e.from, e.to);
  }
  for (const solve::Follower& f : problem.followers) {
    const auto node = static_cast<std::size_t>(f.node);
    const auto leader = static_cast<std::size_t>(f.leader);
    if (rule[node] < 0 && rule[leader] < 0) continue;
    bool any = false;
    for (std::size_t l = 0; l < f.label_map.size() && !any; ++l) {
      const solve::LabelIndex m = f.label_map[l];
      any = allowed[leader][l] != 0 && m >= 0 && allowed[node][static_cast<std::size_t>(m)] != 0;
    }
    if (!any) return conflict(f.leader, f.node);
  }
  return {};
}

core::Error pin_infeasible(const core::Error& cause, const PinMatch& match, const PinSet& pins) {
  std::set<std::int32_t> rules;
  for (std::size_t r = 0; r < match.matched.size(); ++r) {
    if (match.matched[r] > 0) rules.insert(static_cast<std::int32_t>(r));
  }
  return core::Error::unsupported(pins.source + ": no feasible plan under rules " +
                                  rule_names(pins, rules) + ": " + cause.message);
}

}  // namespace dtplan::strategy
