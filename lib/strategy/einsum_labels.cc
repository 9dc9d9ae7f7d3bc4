#include "strategy/einsum_labels.h"

#include <algorithm>

#include "graph/einsum.h"

namespace dtplan::strategy {

std::string EinsumLabels::equation() const {
  std::string out;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) out += ',';
    out += operands[i];
  }
  return out + "->" + output;
}

core::Result<EinsumLabels> expand_einsum(std::string_view equation,
                                         std::span<const graph::Shape* const> shapes,
                                         std::string_view what) {
  DTPLAN_TRY(graph::EinsumSpec spec, graph::parse_einsum(equation, what));
  if (spec.operands.size() != shapes.size()) {
    return core::Error::bad_input(std::string(what) + ": '" + std::string(equation) + "' has " +
                                  std::to_string(spec.operands.size()) + " operands but " +
                                  std::to_string(shapes.size()) + " inputs");
  }
  // Ellipsis width per operand, and the widest (the output's).
  std::vector<std::size_t> width(spec.operands.size(), 0);
  std::size_t widest = 0;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const std::string& term = spec.operands[i];
    const bool has_ellipsis = term.find('.') != std::string::npos;
    const std::size_t letters = term.size() - (has_ellipsis ? 1 : 0);
    const std::size_t rank = shapes[i]->size();
    if (rank < letters || (!has_ellipsis && rank != letters)) {
      return core::Error::bad_input(std::string(what) + ": operand " + std::to_string(i) + " '" +
                                    term + "' does not fit shape " +
                                    graph::format_shape(*shapes[i]));
    }
    width[i] = has_ellipsis ? rank - letters : 0;
    widest = std::max(widest, width[i]);
  }
  // Fresh letters for the ellipsis dims, uppercase first (equations are mostly lowercase).
  std::string fresh;
  auto used = [&](char c) {
    if (spec.output.find(c) != std::string::npos) return true;
    return std::any_of(spec.operands.begin(), spec.operands.end(),
                       [c](const std::string& t) { return t.find(c) != std::string::npos; });
  };
  for (char c = 'A'; c <= 'Z' && fresh.size() < widest; ++c) {
    if (!used(c)) fresh += c;
  }
  for (char c = 'a'; c <= 'z' && fresh.size() < widest; ++c) {
    if (!used(c)) fresh += c;
  }
  if (fresh.size() < widest) {
    return core::Error::unsupported(std::string(what) + ": '" + std::string(equation) +
                                    "' needs more letters than remain for its ellipsis");
  }
  auto expand_term = [&](const std::string& term, std::size_t w) {
    std::string out;
    for (char c : term) {
      if (c == '.') {
        out += fresh.substr(widest - w, w);  // right-aligned
      } else {
        out += c;
      }
    }
    return out;
  };
  EinsumLabels labels;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    labels.operands.push_back(expand_term(spec.operands[i], width[i]));
  }
  labels.output = expand_term(spec.output, widest);
  return labels;
}

}  // namespace dtplan::strategy
