#include "strategy/einsum_labels.h"

#include <doctest/doctest.h>

namespace dtplan::strategy {
namespace {

core::Result<EinsumLabels> expand(const std::string& eq, std::vector<graph::Shape> shapes) {
  std::vector<const graph::Shape*> ptrs;
  for (const graph::Shape& s : shapes) ptrs.push_back(&s);
  return expand_einsum(eq, ptrs, "eq");
}

TEST_CASE("expand_einsum: explicit labels pass through") {
  auto l = expand("abk,kn->abn", {{16, 8192, 4096}, {4096, 1024}});
  REQUIRE(l.ok());
  CHECK(l->operands == std::vector<std::string>{"abk", "kn"});
  CHECK(l->output == "abn");
  CHECK(l->equation() == "abk,kn->abn");
}

TEST_CASE("expand_einsum: ellipsis dims get fresh letters, right-aligned") {
  auto l = expand("...k,kn->...n", {{16, 8192, 4096}, {4096, 1024}});
  REQUIRE(l.ok());
  CHECK(l->equation() == "ABk,kn->ABn");
  // Broadcast ellipses of different widths share their trailing letters.
  auto b = expand("...ij,...jk->...ik", {{5, 2, 3, 4}, {3, 4, 6}});
  REQUIRE(b.ok());
  CHECK(b->equation() == "ABij,Bjk->ABik");
  // Letters already used are skipped.
  auto u = expand("A...,A->A...", {{2, 3}, {2}});
  REQUIRE(u.ok());
  CHECK(u->equation() == "AB,A->AB");
  // An implicit output keeps the ellipsis first.
  auto imp = expand("...i,i", {{3, 4}, {4}});
  REQUIRE(imp.ok());
  CHECK(imp->output == "A");
}

TEST_CASE("expand_einsum: errors name the input") {
  auto r = expand("abk,kn->abn", {{16, 8192}, {4096, 1024}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "eq: operand 0 'abk' does not fit shape [16,8192]");
  CHECK_FALSE(expand("ab,bc->ac", {{2, 3}}).ok());
  CHECK_FALSE(expand("a$b->a", {{2, 3}}).ok());
}

}  // namespace
}  // namespace dtplan::strategy
