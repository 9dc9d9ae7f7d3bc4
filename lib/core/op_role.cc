#include "core/op_role.h"

#include <array>
#include <string>

namespace dtplan::core {
namespace {

struct Names {
  std::string_view graph;
  std::string_view plan;
};

// Indexed by OpRole.
constexpr std::array<Names, 7> kNames = {{
    {"none", ""},
    {"param", "parameter"},
    {"buffer", "buffer"},
    {"input", "input"},
    {"tangent", "tangent"},
    {"grad", "gradient"},
    {"output", "output"},
}};

}  // namespace

std::string_view graph_role_name(OpRole role) {
  return kNames[static_cast<std::size_t>(role)].graph;
}

Result<OpRole> parse_graph_role(std::string_view text, std::string_view what) {
  std::string accepted;
  for (OpRole role : kOpRoles) {
    if (graph_role_name(role) == text) return role;
    if (!accepted.empty()) accepted += ", ";
    accepted += graph_role_name(role);
  }
  return Error::bad_input(std::string(what) + ": unknown role '" + std::string(text) + "' (use " +
                          accepted + ")");
}

std::string_view plan_role_name(OpRole role) { return kNames[static_cast<std::size_t>(role)].plan; }

Result<OpRole> parse_plan_role(std::string_view text) {
  for (OpRole role : kOpRoles) {
    if (plan_role_name(role) == text) return role;
  }
  return Error::bad_input("unknown role '" + std::string(text) + "'");
}

}  // namespace dtplan::core
