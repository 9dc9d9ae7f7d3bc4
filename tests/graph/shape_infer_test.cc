#include "graph/shape_infer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace dtplan::graph {
namespace {

using core::DType;
using Ints = std::vector<std::int64_t>;

core::Result<Inferred> infer(OpKind op, std::vector<TensorMeta> in, Attributes attrs = {}) {
  Node node;
  node.name = "n";
  node.op = op;
  node.attrs = std::move(attrs);
  std::vector<const TensorMeta*> ptrs;
  for (const TensorMeta& m : in) ptrs.push_back(&m);
  return infer_outputs(node, ptrs);
}

TensorMeta first(const core::Result<Inferred>& r) {
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->outputs.empty());
  return r->outputs[0];
}

TensorMeta bf16(Shape s) { return {std::move(s), DType::kBF16}; }
TensorMeta f32(Shape s) { return {std::move(s), DType::kF32}; }

TEST_CASE("shape inference: broadcasting over random shapes") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t rank = rng() % 5;
    Shape target(rank);
    for (auto& d : target) d = static_cast<std::int64_t>(1 + rng() % 6);
    // Each operand: a suffix of the target with some dims set to 1.
    auto operand = [&] {
      Shape s(target.begin() + static_cast<long>(rng() % (rank + 1)), target.end());
      for (auto& d : s) {
        if (rng() % 3 == 0) d = 1;
      }
      return s;
    };
    Shape a = operand(), b = operand();
    Shape want(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t from_end = rank - i;
      std::int64_t x = from_end <= a.size() ? a[a.size() - from_end] : 1;
      std::int64_t y = from_end <= b.size() ? b[b.size() - from_end] : 1;
      want[i] = std::max(x, y);
    }
    Shape got = broadcast_shapes(a, b).value();
    // Leading dims beyond both operands are absent, not 1.
    Shape trimmed(want.end() - static_cast<long>(std::max(a.size(), b.size())), want.end());
    CHECK(got == trimmed);
    CHECK(broadcast_shapes(b, a).value() == got);
    CHECK(first(infer(OpKind::kMul, {bf16(a), bf16(b)})).shape == got);
  }
  CHECK(broadcast_shapes({4, 1, 3}, {5, 1}).value() == Shape{4, 5, 3});
  CHECK(broadcast_shapes({2, 3}, {4, 3}).error().message ==
        "shapes [2,3] and [4,3] do not broadcast");
}

TEST_CASE("shape inference: PyTorch type promotion") {
  auto promote = [](std::vector<TensorMeta> ts, std::vector<AttrValue> scalars) {
    std::vector<const TensorMeta*> t;
    for (const auto& m : ts) t.push_back(&m);
    std::vector<const AttrValue*> s;
    for (const auto& v : scalars) s.push_back(&v);
    return promote_dtypes(t, s);
  };
  CHECK(promote({f32({4}), bf16({4})}, {}) == DType::kF32);
  CHECK(promote({bf16({4}), f32({})}, {}) == DType::kBF16);          // 0-d tensors rank lower
  CHECK(promote({{{4}, DType::kI32}, f32({})}, {}) == DType::kF32);  // unless of higher category
  CHECK(promote({bf16({4})}, {AttrValue{2.0}}) == DType::kBF16);
  CHECK(promote({{{4}, DType::kI64}}, {AttrValue{0.5}}) == DType::kF32);
  CHECK(promote({{{4}, DType::kI32}}, {AttrValue{std::int64_t{2}}}) == DType::kI32);
  CHECK(promote({bf16({4}), {{4}, DType::kF16}}, {}) == DType::kF32);
  CHECK(promote({{{4}, DType::kC64}, f32({4})}, {}) == DType::kC64);
  CHECK(promote({{{4}, DType::kBool}}, {AttrValue{true}}) == DType::kBool);
  // Pointwise ops: float-only functions and true division promote integers to f32.
  CHECK(first(infer(OpKind::kRsqrt, {{{4}, DType::kI64}})).dtype == DType::kF32);
  CHECK(first(infer(OpKind::kDiv, {{{4}, DType::kI64}}, {{"other", std::int64_t{2}}})).dtype ==
        DType::kF32);
  CHECK(first(infer(OpKind::kDiv, {{{4}, DType::kI64}},
                    {{"other", std::int64_t{2}}, {"rounding_mode", std::string("floor")}}))
            .dtype == DType::kI64);
  CHECK(first(infer(OpKind::kLt, {f32({4}), f32({4})})).dtype == DType::kBool);
  CHECK(first(infer(OpKind::kToCopy, {f32({4})}, {{"dtype", DType::kBF16}})).dtype == DType::kBF16);
  CHECK(first(infer(OpKind::kWhere, {{{4}, DType::kBool}, bf16({4})}, {{"other", 0.0}})).dtype ==
        DType::kBF16);
}

TEST_CASE("shape inference: matmul family") {
  CHECK(first(infer(OpKind::kMm, {bf16({16, 4096}), bf16({4096, 1024})})) == bf16({16, 1024}));
  CHECK(first(infer(OpKind::kBmm, {bf16({8, 2, 3}), bf16({8, 3, 5})})) == bf16({8, 2, 5}));
  CHECK(first(infer(OpKind::kAddmm, {bf16({5}), bf16({2, 3}), bf16({3, 5})})) == bf16({2, 5}));
  CHECK(infer(OpKind::kMm, {bf16({16, 4096}), bf16({1024, 4096})}).error().message ==
        "field 'inputs': mm needs [m,k] x [k,n], got [16,4096] x [1024,4096]");
  CHECK_FALSE(infer(OpKind::kAddmm, {bf16({4}), bf16({2, 3}), bf16({3, 5})}).ok());
  CHECK(first(infer(OpKind::kEinsum, {bf16({16, 8192, 4096}), bf16({4096, 1024})},
                    {{"equation", std::string("abk,kn->abn")}})) == bf16({16, 8192, 1024}));
  CHECK(infer(OpKind::kEinsum, {bf16({2, 3})}).error().message ==
        "field 'attrs'.'equation': missing");
}

TEST_CASE("shape inference: reductions, softmax, norms, embedding") {
  CHECK(first(infer(OpKind::kMean, {f32({16, 8192, 4096})},
                    {{"dim", Ints{2}}, {"keepdim", true}})) == f32({16, 8192, 1}));
  CHECK(first(infer(OpKind::kSum, {f32({16, 8192, 4096})}, {{"dim", Ints{0, 1}}})) == f32({4096}));
  CHECK(first(infer(OpKind::kSum, {f32({2, 3})}, {{"dim", std::int64_t{-1}}})) == f32({2}));
  CHECK(first(infer(OpKind::kSum, {f32({2, 3})})) == f32({}));
  CHECK(first(infer(OpKind::kSum, {{{2, 3}, DType::kI32}})).dtype == DType::kI64);
  CHECK(first(infer(OpKind::kAmax, {bf16({2, 3})}, {{"dim", Ints{1}}, {"keepdim", true}})) ==
        bf16({2, 1}));
  CHECK(infer(OpKind::kSum, {f32({2, 3})}, {{"dim", Ints{1, -1}}}).error().message ==
        "field 'attrs'.'dim': dimension 1 appears twice");
  CHECK(infer(OpKind::kSum, {f32({2, 3})}, {{"dim", Ints{2}}}).error().message ==
        "field 'attrs'.'dim': dimension 2 is out of range for a 2-d tensor");
  CHECK_FALSE(infer(OpKind::kMean, {{{4}, DType::kI64}}).ok());
  CHECK(first(infer(OpKind::kSoftmax, {bf16({2, 8})},
                    {{"dim", std::int64_t{-1}}, {"half_to_float", true}})) == f32({2, 8}));
  CHECK(first(infer(OpKind::kSoftmaxBackward, {f32({2, 8}), f32({2, 8})},
                    {{"dim", std::int64_t{1}}, {"input_dtype", DType::kBF16}})) == bf16({2, 8}));
  auto norm = infer(OpKind::kFusedRmsNorm, {bf16({4, 16, 64}), bf16({64})},
                    {{"normalized_shape", Ints{64}}});
  REQUIRE(norm.ok());
  CHECK(norm->outputs == std::vector<TensorMeta>{bf16({4, 16, 64}), f32({4, 16, 1})});
  CHECK_FALSE(infer(OpKind::kFusedRmsNorm, {bf16({4, 64})}, {{"normalized_shape", Ints{32}}}).ok());
  CHECK(first(infer(OpKind::kEmbedding, {bf16({128256, 4096}), {{16, 8192}, DType::kI64}})) ==
        bf16({16, 8192, 4096}));
  CHECK(first(infer(OpKind::kEmbeddingDenseBackward,
                    {bf16({16, 8192, 4096}), {{16, 8192}, DType::kI64}},
                    {{"num_weights", std::int64_t{128256}}})) == bf16({128256, 4096}));
  CHECK(infer(OpKind::kEmbedding, {bf16({10, 4}), f32({3})}).error().message ==
        "field 'inputs': indices must be integers, got f32[3]");
}

TEST_CASE("shape inference: views over random shapes") {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rank = 1 + rng() % 5;
    Shape s(rank);
    for (auto& d : s) d = static_cast<std::int64_t>(1 + rng() % 5);
    const TensorMeta x = bf16(s);
    // permute then the inverse permutation is the identity
    Ints perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    TensorMeta p = first(infer(OpKind::kPermute, {x}, {{"dims", perm}}));
    for (std::size_t i = 0; i < rank; ++i) CHECK(p.shape[i] == s[perm[i]]);
    Ints inverse(rank);
    for (std::size_t i = 0; i < rank; ++i) inverse[perm[i]] = static_cast<std::int64_t>(i);
    CHECK(first(infer(OpKind::kPermute, {p}, {{"dims", inverse}})) == x);
    // view to the flattened shape, with and without -1
    const std::int64_t n =
        std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
    CHECK(first(infer(OpKind::kView, {x}, {{"size", Ints{n}}})) == bf16({n}));
    CHECK(first(infer(OpKind::kReshape, {x}, {{"size", Ints{s[0], -1}}})) ==
          bf16({s[0], n / s[0]}));
    CHECK_FALSE(infer(OpKind::kView, {x}, {{"size", Ints{n + 1}}}).ok());
    // unsqueeze then squeeze of the same dim is the identity
    const auto d = static_cast<std::int64_t>(rng() % (rank + 1));
    TensorMeta u = first(infer(OpKind::kUnsqueeze, {x}, {{"dim", d}}));
    CHECK(u.shape.size() == rank + 1);
    CHECK(first(infer(OpKind::kSqueeze, {u}, {{"dim", d}})) == x);
    // split then cat along a dim restores the shape
    const auto dim = static_cast<std::int64_t>(rng() % rank);
    const std::int64_t chunk = 1 + static_cast<std::int64_t>(rng() % 3);
    auto parts = infer(OpKind::kSplit, {x}, {{"split_size", chunk}, {"dim", dim}});
    REQUIRE(parts.ok());
    CHECK(parts->outputs.size() == static_cast<std::size_t>((s[dim] + chunk - 1) / chunk));
    CHECK(first(infer(OpKind::kCat, parts->outputs, {{"dim", dim}})) == x);
  }
}

TEST_CASE("shape inference: slice follows Python slicing") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 1000; ++trial) {
    const std::int64_t n = static_cast<std::int64_t>(rng() % 12);
    const std::int64_t start = static_cast<std::int64_t>(rng() % 30) - 15;
    const std::int64_t end = static_cast<std::int64_t>(rng() % 30) - 15;
    const std::int64_t step = 1 + static_cast<std::int64_t>(rng() % 4);
    // Reference: count the indices range(n)[start:end:step] would keep.
    auto norm = [n](std::int64_t v) {
      return v < 0 ? std::max<std::int64_t>(v + n, 0) : std::min(v, n);
    };
    std::int64_t want = 0;
    for (std::int64_t i = norm(start); i < norm(end); i += step) ++want;
    auto got =
        first(infer(OpKind::kSlice, {f32({3, n})},
                    {{"dim", std::int64_t{1}}, {"start", start}, {"end", end}, {"step", step}}));
    CHECK(got.shape == Shape{3, want});
  }
  CHECK(first(infer(OpKind::kSlice, {f32({8192, 64})},
                    {{"dim", std::int64_t{0}},
                     {"start", std::int64_t{0}},
                     {"end", std::numeric_limits<std::int64_t>::max()}})) == f32({8192, 64}));
}

TEST_CASE("shape inference: the remaining view-likes and their errors") {
  const TensorMeta q = bf16({16, 8192, 32, 128});
  CHECK(first(infer(OpKind::kTranspose, {q},
                    {{"dim0", std::int64_t{1}}, {"dim1", std::int64_t{2}}})) ==
        bf16({16, 32, 8192, 128}));
  CHECK(first(infer(OpKind::kT, {bf16({3, 5})})) == bf16({5, 3}));
  CHECK_FALSE(infer(OpKind::kT, {q}).ok());
  CHECK(first(infer(OpKind::kExpand, {bf16({16, 8192, 8, 1, 128})},
                    {{"size", Ints{16, 8192, 8, 4, 128}}})) == bf16({16, 8192, 8, 4, 128}));
  CHECK(first(infer(OpKind::kExpand, {bf16({3, 1})}, {{"size", Ints{2, -1, 4}}})) ==
        bf16({2, 3, 4}));
  CHECK(infer(OpKind::kExpand, {bf16({3, 2})}, {{"size", Ints{3, 4}}}).error().message ==
        "field 'attrs'.'size': cannot expand [3,2] to [3,4]");
  CHECK(first(infer(OpKind::kSqueeze, {bf16({1, 3, 1})})) == bf16({3}));
  CHECK(first(infer(OpKind::kSqueeze, {bf16({2, 3})}, {{"dim", std::int64_t{0}}})) == bf16({2, 3}));
  CHECK(first(infer(OpKind::kSelect, {bf16({4, 5})},
                    {{"dim", std::int64_t{1}}, {"index", std::int64_t{-1}}})) == bf16({4}));
  CHECK_FALSE(
      infer(OpKind::kSelect, {bf16({4, 5})}, {{"dim", std::int64_t{1}}, {"index", std::int64_t{5}}})
          .ok());
  CHECK(first(infer(OpKind::kViewAsComplex, {f32({16, 8192, 32, 64, 2})})) ==
        TensorMeta{{16, 8192, 32, 64}, DType::kC64});
  CHECK(first(infer(OpKind::kViewAsReal, {{{1, 8192, 1, 64}, DType::kC64}})) ==
        f32({1, 8192, 1, 64, 2}));
  CHECK_FALSE(infer(OpKind::kViewAsComplex, {f32({4, 3})}).ok());
  CHECK(first(infer(OpKind::kView, {f32({4, 6})}, {{"dtype", DType::kBF16}})) == bf16({4, 12}));
  auto sizes = infer(OpKind::kSplitWithSizes, {f32({10, 4})}, {{"split_sizes", Ints{3, 7}}});
  REQUIRE(sizes.ok());
  CHECK(sizes->outputs == std::vector<TensorMeta>{f32({3, 4}), f32({7, 4})});
  CHECK(infer(OpKind::kSplitWithSizes, {f32({10, 4})}, {{"split_sizes", Ints{3, 6}}})
            .error()
            .message == "field 'attrs'.'split_sizes': [3,6] sums to 9, dimension 0 has 10");
  CHECK(infer(OpKind::kView, {f32({4, 6})}, {{"size", Ints{5, -1}}}).error().message ==
        "field 'attrs'.'size': [5,-1] cannot view 24 elements");
  CHECK_FALSE(infer(OpKind::kView, {f32({4, 6})}, {{"size", Ints{-1, -1}}}).ok());
  CHECK_FALSE(infer(OpKind::kPermute, {f32({4, 6})}, {{"dims", Ints{0, 0}}}).ok());
  CHECK_FALSE(infer(OpKind::kCat, {f32({4, 6}), f32({5, 5})}, {{"dim", std::int64_t{0}}}).ok());
}

TEST_CASE("shape inference: attention, factories, leaves") {
  const TensorMeta q = bf16({16, 32, 8192, 128});
  auto fwd = infer(OpKind::kSdpaCudnn, {q, q, q});
  REQUIRE(fwd.ok());
  CHECK_FALSE(fwd->exact);
  CHECK(fwd->outputs == std::vector<TensorMeta>{q});
  const TensorMeta kv = bf16({16, 8, 8192, 128});
  CHECK(first(infer(OpKind::kSdpaFlash, {q, kv, kv})) == q);  // grouped-query attention
  CHECK_FALSE(
      infer(OpKind::kSdpaFlash, {q, bf16({16, 5, 8192, 128}), bf16({16, 5, 8192, 128})}).ok());
  CHECK_FALSE(infer(OpKind::kSdpaFlash, {bf16({16, 8192, 128}), q, q}).ok());
  auto bwd = infer(OpKind::kSdpaCudnnBackward, {q, q, kv, kv});
  REQUIRE(bwd.ok());
  CHECK(bwd->outputs == std::vector<TensorMeta>{q, kv, kv});
  CHECK(first(infer(OpKind::kZeros, {}, {{"size", Ints{2, 3}}})) == f32({2, 3}));
  CHECK(
      first(infer(OpKind::kFull, {}, {{"size", Ints{2}}, {"fill_value", std::int64_t{1}}})).dtype ==
      DType::kI64);
  CHECK(first(infer(OpKind::kOnes, {}, {{"size", Ints{2}}, {"dtype", DType::kBF16}})) == bf16({2}));
  CHECK(first(infer(OpKind::kArange, {}, {{"end", std::int64_t{10}}})) ==
        TensorMeta{{10}, DType::kI64});
  CHECK(first(infer(OpKind::kArange, {},
                    {{"start", 1.0}, {"end", std::int64_t{2}}, {"step", 0.25}})) == f32({4}));
  CHECK_FALSE(
      infer(OpKind::kArange, {}, {{"end", std::int64_t{10}}, {"step", std::int64_t{0}}}).ok());
  auto leaf = infer(OpKind::kPlaceholder, {});
  REQUIRE(leaf.ok());
  CHECK(leaf->outputs.empty());
  CHECK_FALSE(leaf->exact);
  CHECK(normalize_dim(-1, 3, "f").value() == 2);
  CHECK(normalize_dim(0, 0, "f").value() == 0);
  CHECK_FALSE(normalize_dim(3, 3, "f").ok());
}

}  // namespace
}  // namespace dtplan::graph
