#pragma once
// Einsum equations as torch.einsum reads them: letters a-z/A-Z label dimensions, "..." stands for
// broadcast batch dimensions, "->" introduces the output (without it the output is "..." followed
// by the labels used exactly once, in ASCII order). Spaces are ignored.
//
//   parse_einsum("abk,kn->abn") -> operands {"abk", "kn"}, output "abn"
//   einsum_output_shape(spec, {{16,8192,4096}, {4096,1024}}) == {16,8192,1024}

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "graph/tensor_meta.h"

namespace dtplan::graph {

// Operand and output label strings; an ellipsis is stored as the single character '.'.
struct EinsumSpec {
  std::vector<std::string> operands;
  std::string output;

  bool operator==(const EinsumSpec&) const = default;
};

// @post error (kBadInput, naming `what`) for characters other than letters, ',', '-', '>', '.',
//   spaces; a malformed "->" or ellipsis; an output label that no operand has, or one repeated.
core::Result<EinsumSpec> parse_einsum(std::string_view equation, std::string_view what);

// Output shape for operand shapes. A label must have one size across operands (size 1
// broadcasts); ellipsis dimensions broadcast right-aligned.
// @post error when the operand count or ranks do not fit the spec, or sizes conflict.
core::Result<Shape> einsum_output_shape(const EinsumSpec& spec,
                                        std::span<const Shape* const> operands,
                                        std::string_view what);

}  // namespace dtplan::graph
