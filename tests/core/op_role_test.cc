#include "core/op_role.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace dtplan::core {
namespace {

TEST_CASE("op roles: the graph and plan spellings the file formats use") {
  CHECK(graph_role_name(OpRole::kNone) == "none");
  CHECK(graph_role_name(OpRole::kParam) == "param");
  CHECK(graph_role_name(OpRole::kGrad) == "grad");
  CHECK(plan_role_name(OpRole::kNone).empty());
  CHECK(plan_role_name(OpRole::kParam) == "parameter");
  CHECK(plan_role_name(OpRole::kGrad) == "gradient");
  for (OpRole role : {OpRole::kBuffer, OpRole::kInput, OpRole::kTangent, OpRole::kOutput}) {
    CHECK(graph_role_name(role) == plan_role_name(role));
  }
}

TEST_CASE("op roles: every name parses back to its role, in both spellings") {
  std::set<std::string> graph_names;
  std::set<std::string> plan_names;
  for (OpRole role : kOpRoles) {
    CHECK(parse_graph_role(graph_role_name(role), "r").value() == role);
    CHECK(parse_plan_role(plan_role_name(role)).value() == role);
    graph_names.insert(std::string(graph_role_name(role)));
    plan_names.insert(std::string(plan_role_name(role)));
  }
  CHECK(graph_names.size() == 7);
  CHECK(plan_names.size() == 7);
}

TEST_CASE("op roles: the other format's spelling is refused") {
  CHECK(parse_graph_role("parameter", "node 'w' field 'role'").error().message ==
        "node 'w' field 'role': unknown role 'parameter' (use none, param, buffer, input, tangent, "
        "grad, output)");
  CHECK(!parse_graph_role("", "r").ok());
  CHECK(parse_plan_role("grad").error().message == "unknown role 'grad'");
  CHECK(!parse_plan_role("none").ok());
}

TEST_CASE("op roles: the placeholder roles") {
  std::set<OpRole> placeholders;
  for (OpRole role : kOpRoles) {
    if (is_placeholder_role(role)) placeholders.insert(role);
  }
  CHECK(placeholders ==
        std::set<OpRole>{OpRole::kParam, OpRole::kBuffer, OpRole::kInput, OpRole::kTangent});
}

}  // namespace
}  // namespace dtplan::core
