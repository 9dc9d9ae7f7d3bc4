#pragma once
// OpRole: what an op is to the training step, one enum for the graph, the plan, the strategies
// and the simulator. The two file formats spell it differently and keep their spellings:
//   graph JSON  "none", "param", "buffer", "input", "tangent", "grad", "output"
//   plan JSON   "",     "parameter", "buffer", "input", "tangent", "gradient", "output"
// Placeholders are kParam, kBuffer, kInput or kTangent; the node whose value is returned as a
// gradient is kGrad; the node whose value is the model output is kOutput.

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace dtplan::core {

enum class OpRole : std::uint8_t { kNone, kParam, kBuffer, kInput, kTangent, kGrad, kOutput };

// Every role, in enum order.
inline constexpr OpRole kOpRoles[] = {OpRole::kNone,  OpRole::kParam,   OpRole::kBuffer,
                                      OpRole::kInput, OpRole::kTangent, OpRole::kGrad,
                                      OpRole::kOutput};

// The graph JSON spelling. Example: graph_role_name(OpRole::kParam) == "param".
std::string_view graph_role_name(OpRole role);
// Errors (kBadInput): "WHAT: unknown role 'TEXT' (use none, param, buffer, input, tangent, grad,
// output)".
Result<OpRole> parse_graph_role(std::string_view text, std::string_view what);

// The plan JSON spelling. Example: plan_role_name(OpRole::kGrad) == "gradient", kNone is "".
std::string_view plan_role_name(OpRole role);
// Errors (kBadInput): "unknown role 'TEXT'".
Result<OpRole> parse_plan_role(std::string_view text);

// True for the placeholder roles (kParam, kBuffer, kInput, kTangent).
constexpr bool is_placeholder_role(OpRole role) {
  return role == OpRole::kParam || role == OpRole::kBuffer || role == OpRole::kInput ||
         role == OpRole::kTangent;
}

}  // namespace dtplan::core
