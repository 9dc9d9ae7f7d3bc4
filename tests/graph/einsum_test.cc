#include "graph/einsum.h"

#include <doctest/doctest.h>

#include <random>

namespace dtplan::graph {
namespace {

core::Result<Shape> out_shape(std::string_view eq, std::vector<Shape> shapes) {
  DTPLAN_TRY(EinsumSpec spec, parse_einsum(eq, "eq"));
  std::vector<const Shape*> ptrs;
  for (const Shape& s : shapes) ptrs.push_back(&s);
  return einsum_output_shape(spec, ptrs, "eq");
}

TEST_CASE("einsum: the LLaMA linear equations (docs/reference/strategy_selection.md §2.3, §5.6)") {
  CHECK(out_shape("abk,kn->abn", {{16, 8192, 4096}, {4096, 1024}}).value() ==
        Shape{16, 8192, 1024});
  CHECK(out_shape("abn,nk->abk", {{16, 8192, 1024}, {1024, 4096}}).value() ==
        Shape{16, 8192, 4096});
  CHECK(out_shape("abn,abk->kn", {{16, 8192, 14336}, {16, 8192, 4096}}).value() ==
        Shape{4096, 14336});
  auto spec = parse_einsum(" abk , kn -> abn ", "eq").value();
  CHECK(spec.operands == std::vector<std::string>{"abk", "kn"});
  CHECK(spec.output == "abn");
}

TEST_CASE("einsum: implicit output, ellipsis and size-1 broadcasting") {
  CHECK(parse_einsum("ij,jk", "eq")->output == "ik");
  CHECK(parse_einsum("ba,Ab", "eq")->output == "Aa");  // ASCII order: upper case first
  CHECK(parse_einsum("...ij,...jk", "eq")->output == ".ik");
  CHECK(out_shape("...ij,...jk->...ik", {{5, 1, 2, 3}, {4, 3, 6}}).value() == Shape{5, 4, 2, 6});
  CHECK(out_shape("ij,j->i", {{3, 4}, {1}}).value() == Shape{3});
  CHECK(out_shape("ii->i", {{3, 3}}).value() == Shape{3});
}

TEST_CASE("einsum: malformed equations and mismatched operands are errors") {
  CHECK(parse_einsum("ab1,b->a", "eq").error().message.find("unexpected character '1'") !=
        std::string::npos);
  CHECK_FALSE(parse_einsum("ab,b->a->a", "eq").ok());
  CHECK_FALSE(parse_einsum("ab,b-a", "eq").ok());
  CHECK_FALSE(parse_einsum("a..b,b->a", "eq").ok());
  CHECK(parse_einsum("ab,b->c", "eq").error().message ==
        "eq: output label 'c' is not in any operand");
  CHECK(parse_einsum("ab,b->aa", "eq").error().message == "eq: output label 'a' appears twice");
  CHECK(out_shape("ab,bc->ac", {{2, 3}}).error().message.find("2 operands but 1") !=
        std::string::npos);
  CHECK(out_shape("ab,bc->ac", {{2, 3}, {4, 5}}).error().message ==
        "eq: label 'b' has sizes 3 and 4");
  CHECK_FALSE(out_shape("ab,bc->ac", {{2, 3, 4}, {3, 5}}).ok());
}

TEST_CASE("einsum: batched matmul equations over random shapes") {
  std::mt19937_64 rng(7);
  auto dim = [&] { return static_cast<std::int64_t>(1 + rng() % 9); };
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t b = dim(), m = dim(), k = dim(), n = dim();
    CHECK(out_shape("bmk,bkn->bmn", {{b, m, k}, {b, k, n}}).value() == Shape{b, m, n});
    CHECK(out_shape("bmk,bkn->nmb", {{b, m, k}, {b, k, n}}).value() == Shape{n, m, b});
    CHECK(out_shape("bmk,bkn", {{b, m, k}, {b, k, n}}).value() == Shape{m, n});
    // A label of size 1 broadcasts; any other mismatch is an error.
    const std::int64_t other = k + 1 + static_cast<std::int64_t>(rng() % 3);
    CHECK(out_shape("bmk,bkn->bmn", {{b, m, k}, {b, other, n}}).ok() == (k == 1));
  }
}

}  // namespace
}  // namespace dtplan::graph
