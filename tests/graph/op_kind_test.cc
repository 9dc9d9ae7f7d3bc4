#include "graph/op_kind.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace dtplan::graph {
namespace {

TEST_CASE("op kinds: every name parses back to its kind, names are unique") {
  std::set<std::string> names;
  for (const OpInfo& info : all_op_infos()) {
    CAPTURE(info.name);
    CHECK(op_info(info.kind).name == info.name);
    CHECK(names.insert(std::string(info.name)).second);
    CHECK(parse_op_kind(info.name, "op").value() == info.kind);
    CHECK(parse_op_kind("aten." + std::string(info.name) + ".default", "op").value() == info.kind);
    CHECK(info.min_inputs >= 0);
    CHECK((info.max_inputs < 0 || info.max_inputs >= info.min_inputs));
    CHECK((info.max_outputs < 0 || info.max_outputs >= info.min_outputs));
    CHECK(op_family_name(info.family) != "?");
  }
  CHECK(names.size() == static_cast<std::size_t>(OpKind::kOther) + 1);
}

TEST_CASE("op kinds: families and arities the strategy layer relies on") {
  CHECK(op_family(OpKind::kEinsum) == OpFamily::kMatmul);
  CHECK(op_family(OpKind::kToCopy) == OpFamily::kPointwise);
  CHECK(op_family(OpKind::kAlias) == OpFamily::kView);
  CHECK(op_family(OpKind::kGetitem) == OpFamily::kTuple);
  CHECK(op_info(OpKind::kMm).min_inputs == 2);
  CHECK(op_info(OpKind::kMm).max_inputs == 2);
  CHECK(op_info(OpKind::kSdpaCudnn).min_outputs == 2);
  CHECK(is_sdpa_forward(OpKind::kSdpaFlash));
  CHECK_FALSE(is_sdpa_forward(OpKind::kSdpaFlashBackward));
  CHECK(is_sdpa_backward(OpKind::kSdpaEfficientBackward));
  CHECK(op_name(OpKind::kToCopy) == "_to_copy");
}

TEST_CASE("op kinds: unknown names are errors with a suggestion") {
  auto typo = parse_op_kind("einsun", "node 'x' field 'op'");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().kind == core::ErrorKind::kBadInput);
  CHECK(typo.error().message ==
        "node 'x' field 'op': unknown op 'einsun' (did you mean 'einsum'?)");
  auto far = parse_op_kind("index_put_", "op");
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().message.find("use \"other\"") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::graph
