#pragma once
// The family of a parameter: its name with every all-digit path component (a repeated layer's
// index) replaced by "*", so that the same weight of alike layers reads as one line.
//
//   parameter_family("layers.3.attention.wq.weight") == "layers.*.attention.wq.weight"
//   parameter_family("norm.weight")                  == "norm.weight"

#include <string>
#include <string_view>

namespace dtplan::plan {

// @post no '.'-separated component of the result is all digits; names without one are returned
//   unchanged.
std::string parameter_family(std::string_view name);

}  // namespace dtplan::plan
