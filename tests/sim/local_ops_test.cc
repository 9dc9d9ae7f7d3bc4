#include "sim/local_ops.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "placement/chunk.h"

namespace dtplan::sim {
namespace {

// An i32 tensor holding 0, 1, 2, ... in row-major order.
Tensor arange(Shape shape) {
  Tensor t = Tensor::zeros(core::DType::kI32, shape).value();
  std::iota(t.values<std::int32_t>().begin(), t.values<std::int32_t>().end(), 0);
  return t;
}

std::vector<std::int32_t> values(const Tensor& t) {
  auto v = t.values<std::int32_t>();
  return {v.begin(), v.end()};
}

using V = std::vector<std::int32_t>;

// Row-major strides and index helpers for the naive checks.
std::int64_t flat_index(const Shape& shape, const std::vector<std::int64_t>& idx) {
  std::int64_t f = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + idx[i];
  return f;
}
std::vector<std::int64_t> unflatten(const Shape& shape, std::int64_t f) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    idx[i] = f % shape[i];
    f /= shape[i];
  }
  return idx;
}

TEST_CASE("local ops: worked examples") {
  Tensor t = arange({4, 6});
  CHECK(values(narrow(t, 1, 2, 3).value()) == V{2, 3, 4, 8, 9, 10, 14, 15, 16, 20, 21, 22});
  CHECK(values(narrow(t, 0, 3, 1).value()) == V{18, 19, 20, 21, 22, 23});
  Tensor p = pad_to(arange({2, 2}), 1, 3).value();
  CHECK(p.shape() == Shape{2, 3});
  CHECK(values(p) == V{0, 1, 0, 2, 3, 0});
  auto pieces = chunk(arange({5}), 0, 4).value();
  REQUIRE(pieces.size() == 4);
  CHECK(values(pieces[0]) == V{0, 1});
  CHECK(values(pieces[2]) == V{4});
  CHECK(pieces[3].shape() == Shape{0});
  CHECK(values(cat(pieces, 0).value()) == V{0, 1, 2, 3, 4});
  CHECK(values(index_select(arange({5}), 0, std::vector<std::int64_t>{4, 0, 0}).value()) ==
        V{4, 0, 0});
  CHECK(values(index_select(arange({2, 3}), 1, std::vector<std::int64_t>{2, 1}).value()) ==
        V{2, 1, 5, 4});
  // The header's split example: {{0,1,2,3},{4,5,6,7}}, n 2, dim 1 -> {{0,1},{4,5},{2,3},{6,7}}.
  Tensor split = split_rank_major(arange({2, 4}), 2, 1).value();
  CHECK(split.shape() == Shape{4, 2});
  CHECK(values(split) == V{0, 1, 4, 5, 2, 3, 6, 7});
  CHECK(merge_rank_major(split, 2, 1).value() == arange({2, 4}));
}

TEST_CASE("local ops: errors name the op and the tensor") {
  Tensor t = arange({4, 6});
  auto a = narrow(t, 2, 0, 1);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().message == "narrow: dim 2 is out of range for i32[4,6]");
  auto b = narrow(t, 1, 4, 3);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message == "narrow: [4, 4 + 3) is not inside dim 1 for i32[4,6]");
  CHECK_FALSE(pad_to(t, 0, 3).ok());
  CHECK_FALSE(chunk(t, 0, 0).ok());
  CHECK_FALSE(index_select(t, 0, std::vector<std::int64_t>{4}).ok());
  auto s = split_rank_major(t, 4, 1);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message ==
        "split_rank_major: dim 1 does not split into 4 equal pieces for i32[4,6]");
  CHECK_FALSE(merge_rank_major(t, 3, 1).ok());
  std::vector<Tensor> mixed = {arange({2, 2}), arange({2, 3})};
  CHECK_FALSE(cat(mixed, 0).ok());
  CHECK(cat(mixed, 1).ok());
}

TEST_CASE("local ops: properties over random shapes") {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    const auto rank = static_cast<std::int64_t>(1 + rng() % 4);
    Shape shape;
    for (std::int64_t i = 0; i < rank; ++i) shape.push_back(static_cast<std::int64_t>(rng() % 6));
    const Tensor t = arange(shape);
    const auto dim = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rank));
    const std::int64_t size = shape[static_cast<std::size_t>(dim)];
    const auto n = static_cast<std::int64_t>(1 + rng() % 5);

    // chunk: torch.chunk lengths, cat restores, each piece is the narrow at its offset.
    auto pieces = chunk(t, dim, n).value();
    REQUIRE(static_cast<std::int64_t>(pieces.size()) == n);
    for (std::int64_t r = 0; r < n; ++r) {
      auto piece = placement::chunk_piece(size, n, r);
      CHECK(pieces[static_cast<std::size_t>(r)] ==
            narrow(t, dim, piece.begin, piece.length()).value());
    }
    CHECK(cat(pieces, dim).value() == t);

    // pad then unpad is the identity; the padding is zero.
    const std::int64_t padded = size + static_cast<std::int64_t>(rng() % 3);
    Tensor p = pad_to(t, dim, padded).value();
    CHECK(narrow(p, dim, 0, size).value() == t);
    if (padded > size && p.numel() > 0) {
      for (std::int32_t v : values(narrow(p, dim, size, padded - size).value())) CHECK(v == 0);
    }

    // index_select with a random index list, checked element by element.
    std::vector<std::int64_t> idx;
    if (size > 0) {
      for (int k = 0; k < 4; ++k)
        idx.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(size)));
    }
    Tensor sel = index_select(t, dim, idx).value();
    for (std::int64_t f = 0; f < sel.numel(); ++f) {
      auto at = unflatten(sel.shape(), f);
      at[static_cast<std::size_t>(dim)] =
          idx[static_cast<std::size_t>(at[static_cast<std::size_t>(dim)])];
      CHECK(sel.values<std::int32_t>()[static_cast<std::size_t>(f)] == flat_index(shape, at));
    }

    // split_rank_major: block j is piece j along dim; merge inverts it.
    if (size % n == 0) {
      Tensor s = split_rank_major(t, n, dim).value();
      const std::int64_t block = s.numel() / n;
      for (std::int64_t j = 0; j < n; ++j) {
        Tensor piece = narrow(t, dim, j * (size / n), size / n).value();
        auto sv = s.values<std::int32_t>();
        CHECK(std::vector<std::int32_t>(sv.begin() + j * block, sv.begin() + (j + 1) * block) ==
              values(piece));
      }
      CHECK(merge_rank_major(s, n, dim).value() == t);
    }
  }
}

TEST_CASE("local ops: shape-only tensors give shape-only results") {
  Tensor s = Tensor::shape_only(core::DType::kBF16, {8, 6}).value();
  Tensor a = narrow(s, 1, 1, 3).value();
  CHECK_FALSE(a.has_data());
  CHECK(a.shape() == Shape{8, 3});
  CHECK(pad_to(s, 0, 9).value().shape() == Shape{9, 6});
  CHECK(chunk(s, 1, 4).value()[3].shape() == Shape{8, 0});
  CHECK(split_rank_major(s, 2, 1).value().shape() == Shape{16, 3});
  CHECK(merge_rank_major(s, 2, 1).value().shape() == Shape{4, 12});
  CHECK_FALSE(index_select(s, 0, std::vector<std::int64_t>{1}).value().has_data());
}

}  // namespace
}  // namespace dtplan::sim
