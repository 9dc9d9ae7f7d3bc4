#pragma once
// Einsum equations with every dim named by a letter: the ellipsis ("...") expanded into unused
// letters for the operand ranks at hand (torch.einsum aligns ellipsis dims to the right and
// broadcasts them). The einsum strategy rule and its FLOP count work on this form.
//
//   expand_einsum("...k,kn->...n", {{16,8192,4096}, {4096,1024}}):
//     operands {"ABk", "kn"}, output "ABn" (A, B: the first unused letters, uppercase first)

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "graph/tensor_meta.h"

namespace dtplan::strategy {

struct EinsumLabels {
  std::vector<std::string> operands;  // one letter per operand dim
  std::string output;                 // one letter per output dim

  // The equation text "op0,op1->out".
  [[nodiscard]] std::string equation() const;
  bool operator==(const EinsumLabels&) const = default;
};

// Parses `equation` (graph::parse_einsum) and names every ellipsis dim.
// @post error (kBadInput, naming `what`) when the equation does not parse, an operand's rank
//   does not fit its term, or (kUnsupported) the letters run out.
core::Result<EinsumLabels> expand_einsum(std::string_view equation,
                                         std::span<const graph::Shape* const> shapes,
                                         std::string_view what);

}  // namespace dtplan::strategy
