#include "graph/einsum.h"

#include <algorithm>
#include <array>
#include <optional>

#include "core/strings.h"

namespace dtplan::graph {
namespace {

using core::Error;
using core::Result;

bool is_label(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Parses one term ("abk", "...k", "a...b"): letters and at most one ellipsis.
Result<std::string> parse_term(std::string_view term, std::string_view what) {
  std::string out;
  bool ellipsis = false;
  for (std::size_t i = 0; i < term.size();) {
    char c = term[i];
    if (is_label(c)) {
      out += c;
      ++i;
    } else if (c == '.') {
      if (term.substr(i, 3) != "..." || ellipsis) {
        return Error::bad_input(std::string(what) + ": malformed ellipsis in '" +
                                std::string(term) + "'");
      }
      ellipsis = true;
      out += '.';
      i += 3;
    } else {
      return Error::bad_input(std::string(what) + ": unexpected character '" + std::string(1, c) +
                              "' (labels are letters a-z, A-Z)");
    }
  }
  return out;
}

}  // namespace

Result<EinsumSpec> parse_einsum(std::string_view equation, std::string_view what) {
  std::string text;
  for (char c : equation) {
    if (c != ' ') text += c;
  }
  EinsumSpec spec;
  std::size_t arrow = text.find("->");
  std::string_view lhs = std::string_view(text).substr(0, arrow);
  for (std::string_view term : core::split(lhs, ',')) {
    DTPLAN_TRY(std::string parsed, parse_term(term, what));
    spec.operands.push_back(std::move(parsed));
  }
  if (arrow != std::string::npos) {
    std::string_view rhs = std::string_view(text).substr(arrow + 2);
    if (rhs.find("->") != std::string_view::npos || rhs.find(',') != std::string_view::npos) {
      return Error::bad_input(std::string(what) + ": '" + std::string(equation) +
                              "' has more than one output term");
    }
    DTPLAN_TRY(spec.output, parse_term(rhs, what));
    for (std::size_t i = 0; i < spec.output.size(); ++i) {
      char c = spec.output[i];
      if (spec.output.find(c, i + 1) != std::string::npos) {
        return Error::bad_input(std::string(what) + ": output label '" + std::string(1, c) +
                                "' appears twice");
      }
      bool found = std::any_of(spec.operands.begin(), spec.operands.end(),
                               [c](const std::string& op) { return op.find(c) != op.npos; });
      if (!found) {
        return Error::bad_input(std::string(what) + ": output label '" +
                                (c == '.' ? std::string("...") : std::string(1, c)) +
                                "' is not in any operand");
      }
    }
  } else {
    if (text.find('-') != std::string::npos || text.find('>') != std::string::npos) {
      return Error::bad_input(std::string(what) + ": malformed '->' in '" + std::string(equation) +
                              "'");
    }
    // Implicit output: ellipsis first, then the labels used exactly once, in ASCII order.
    std::array<int, 128> counts{};
    bool ellipsis = false;
    for (const std::string& op : spec.operands) {
      for (char c : op) {
        if (c == '.') {
          ellipsis = true;
        } else {
          ++counts[static_cast<unsigned char>(c)];
        }
      }
    }
    if (ellipsis) spec.output += '.';
    for (int c = 0; c < 128; ++c) {
      if (counts[c] == 1) spec.output += static_cast<char>(c);
    }
  }
  return spec;
}

Result<Shape> einsum_output_shape(const EinsumSpec& spec, std::span<const Shape* const> operands,
                                  std::string_view what) {
  if (operands.size() != spec.operands.size()) {
    return Error::bad_input(std::string(what) + ": the equation has " +
                            std::to_string(spec.operands.size()) + " operands but " +
                            std::to_string(operands.size()) + " tensors are given");
  }
  std::array<std::optional<std::int64_t>, 128> size_of{};
  Shape ellipsis;  // broadcast of every operand's ellipsis dims, right-aligned
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const std::string& labels = spec.operands[i];
    const Shape& shape = *operands[i];
    const bool has_ellipsis = labels.find('.') != std::string::npos;
    const std::size_t letters = labels.size() - (has_ellipsis ? 1 : 0);
    if (has_ellipsis ? shape.size() < letters : shape.size() != letters) {
      return Error::bad_input(std::string(what) + ": operand " + std::to_string(i) + " '" + labels +
                              "' does not fit shape " + format_shape(shape));
    }
    const std::size_t ell_dims = shape.size() - letters;
    std::size_t dim = 0;
    for (char c : labels) {
      if (c == '.') {
        // Right-aligned broadcast of this operand's ellipsis block into `ellipsis`.
        if (ell_dims > ellipsis.size())
          ellipsis.insert(ellipsis.begin(), ell_dims - ellipsis.size(), 1);
        for (std::size_t e = 0; e < ell_dims; ++e) {
          std::int64_t s = shape[dim + e];
          std::int64_t& slot = ellipsis[ellipsis.size() - ell_dims + e];
          if (slot == 1) {
            slot = s;
          } else if (s != 1 && s != slot) {
            return Error::bad_input(std::string(what) + ": ellipsis dimensions do not broadcast (" +
                                    std::to_string(slot) + " vs " + std::to_string(s) + ")");
          }
        }
        dim += ell_dims;
        continue;
      }
      std::int64_t s = shape[dim++];
      auto& known = size_of[static_cast<unsigned char>(c)];
      if (!known || *known == 1) {
        known = s;
      } else if (s != 1 && s != *known) {
        return Error::bad_input(std::string(what) + ": label '" + std::string(1, c) +
                                "' has sizes " + std::to_string(*known) + " and " +
                                std::to_string(s));
      }
    }
  }
  Shape out;
  for (char c : spec.output) {
    if (c == '.') {
      out.insert(out.end(), ellipsis.begin(), ellipsis.end());
    } else {
      out.push_back(*size_of[static_cast<unsigned char>(c)]);
    }
  }
  return out;
}

}  // namespace dtplan::graph
