#pragma once
// The text syntax of layouts: `S:D` where S and D are IntTuples written as decimal integers or
// parenthesised, comma-separated tuples. Examples: `4:2`, `(2,2):(4,1)`, `((2,2)):((4,1))` (one
// nested mode), `((7,(5,3)),2):((900,(36,4)),1)`, `():()` (no modes). `(4)` is a one-element tuple;
// Python's `(4,)` is accepted as the same. Whitespace between tokens is ignored.

#include <string>
#include <string_view>

#include "core/result.h"
#include "layout/layout.h"

namespace dtplan::layout {

// Prints without spaces. Example: to_string(Layout::row_major({2,2,2})) == "(2,2,2):(4,2,1)".
// @post parse_layout(to_string(l)) == l.
std::string to_string(const Layout& l);

// Parses an IntTuple. Example: parse_int_tuple("(2,(3,4))") == IntTuple::tuple({2, (3,4)}).
// @post error (kBadInput) naming the text and the character position of the first problem;
//   nesting deeper than 32 levels is rejected so that no input can exhaust the stack.
core::Result<IntTuple> parse_int_tuple(std::string_view text);

// Parses a layout and validates it with Layout::make. Example: parse_layout("(2,2):(4,1)").
// @post error naming the text for syntax errors, mismatched nesting ("sizes (2,2) and strides (4)
//   don't match") and values outside the domain (sizes >= 1, strides >= 0, no overflow).
core::Result<Layout> parse_layout(std::string_view text);

}  // namespace dtplan::layout
