#include "cost/compute_work.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

namespace dtplan::cost {
namespace {

using core::DType;

TEST_CASE("compute work: matmul and bmm") {
  CHECK(matmul_work(2, 3, 4, DType::kF32, Pass::kForward).value() == Work{48, 104});
  CHECK(matmul_work(2, 3, 4, DType::kF32, Pass::kBackward).value() == Work{96, 208});
  CHECK(bmm_work(5, 2, 3, 4, DType::kBF16, Pass::kForward).value() == Work{240, 260});
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    std::int64_t b = 1 + rng() % 8, m = 1 + rng() % 4096, n = 1 + rng() % 4096,
                 k = 1 + rng() % 4096;
    Work f = bmm_work(b, m, n, k, DType::kBF16, Pass::kForward).value();
    Work g = bmm_work(b, m, n, k, DType::kBF16, Pass::kBackward).value();
    CHECK(f.flops == 2.0 * b * m * n * k);
    CHECK(g.flops == 2 * f.flops);
    CHECK(g.bytes == 2 * f.bytes);
    // The same contraction written as an einsum costs the same.
    std::vector<std::vector<std::int64_t>> shapes = {{b, m, k}, {b, k, n}};
    CHECK(einsum_work("bmk,bkn->bmn", shapes, DType::kBF16, Pass::kForward).value() == f);
  }
  CHECK_FALSE(matmul_work(-1, 2, 3, DType::kF32, Pass::kForward).ok());
  auto huge = matmul_work(INT64_MAX / 2, 4, 4, DType::kF32, Pass::kForward);
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message.find("bmm") != std::string::npos);
}

TEST_CASE("compute work: einsum forms and errors") {
  using Shapes = std::vector<std::vector<std::int64_t>>;
  Shapes sum = {{4, 6}};
  CHECK(einsum_work("ij->j", sum, DType::kF32, Pass::kForward).value() == Work{24, 120});
  CHECK(einsum_work("ij->ji", sum, DType::kF32, Pass::kForward).value() == Work{0, 192});
  Shapes two = {{4, 6}, {6, 5}};
  CHECK(einsum_work("ij, jk -> ik", two, DType::kF32, Pass::kForward).value().flops == 240);
  CHECK_FALSE(einsum_work("ij,jk", two, DType::kF32, Pass::kForward).ok());
  CHECK_FALSE(einsum_work("ij,kk->ik", two, DType::kF32, Pass::kForward).ok());
  CHECK(einsum_work("ij,jk->iz", two, DType::kF32, Pass::kForward)
            .error()
            .message.find("output letter 'z'") != std::string::npos);
  auto ellipsis = einsum_work("...j,jk->...k", two, DType::kF32, Pass::kForward);
  REQUIRE_FALSE(ellipsis.ok());
  CHECK(ellipsis.error().kind == core::ErrorKind::kUnsupported);
  Shapes three = {{1}, {1}, {1}};
  CHECK_FALSE(einsum_work("a,a,a->a", three, DType::kF32, Pass::kForward).ok());
  Shapes wrong_rank = {{4, 6, 1}, {6, 5}};
  CHECK_FALSE(einsum_work("ij,jk->ik", wrong_rank, DType::kF32, Pass::kForward).ok());
}

TEST_CASE("compute work: attention") {
  AttentionShape s{2, 16, 1024, 1024, 128, 128};
  Work f = sdpa_work(s, DType::kBF16, AttentionMask::kNone, Pass::kForward).value();
  Work b = sdpa_work(s, DType::kBF16, AttentionMask::kNone, Pass::kBackward).value();
  CHECK(f.flops == 4.0 * 2 * 16 * 1024 * 1024 * 128);  // 4 b h s^2 d
  CHECK(b.flops == doctest::Approx(2.5 * f.flops));    // FlopCounter's backward ratio
  CHECK(f.bytes == 4 * (2 * 16 * 1024 * 128) * 2 + 2 * 16 * 1024 * 4);
  Work causal = sdpa_work(s, DType::kBF16, AttentionMask::kCausal, Pass::kForward).value();
  CHECK(causal.flops == doctest::Approx(f.flops * (1024.0 * 1025 / 2) / (1024.0 * 1024)));
  CHECK(causal.bytes == f.bytes);
  // More keys than queries (decode-style): query i sees i + 1 keys.
  AttentionShape wide{1, 1, 2, 5, 1, 1};
  CHECK(sdpa_work(wide, DType::kF32, AttentionMask::kCausal, Pass::kForward).value().flops ==
        2.0 * 3 * 2);
  AttentionShape tall{1, 1, 5, 2, 1, 1};  // pairs: 1 + 2 + 2 + 2 + 2
  CHECK(sdpa_work(tall, DType::kF32, AttentionMask::kCausal, Pass::kForward).value().flops ==
        2.0 * 9 * 2);
  CHECK_FALSE(
      sdpa_work({1, -1, 1, 1, 1, 1}, DType::kF32, AttentionMask::kNone, Pass::kForward).ok());
}

TEST_CASE("compute work: memory-bound ops count traffic, never zero") {
  std::int64_t two[] = {100, 100};
  CHECK(pointwise_work(two, 100, DType::kBF16).value() == Work{0, 600});
  std::int64_t broadcast[] = {100, 1};
  CHECK(pointwise_work(broadcast, 100, DType::kF32).value() == Work{0, 804});
  CHECK(reduction_work(1000, 10, DType::kF32).value() == Work{0, 4040});
  CHECK(copy_work(10, DType::kF64).value() == Work{0, 160});
  // RMSNorm over [4, 8] bf16: x + w read, y written, 4 fp32 rstd.
  CHECK(norm_work(4, 8, DType::kBF16, NormKind::kRmsNorm, Pass::kForward).value() ==
        Work{0, (32 + 8 + 32) * 2 + 16});
  // LayerNorm adds the bias and a mean per row.
  CHECK(norm_work(4, 8, DType::kBF16, NormKind::kLayerNorm, Pass::kForward).value() ==
        Work{0, (32 + 8 + 32 + 8) * 2 + 32});
  CHECK(norm_work(4, 8, DType::kBF16, NormKind::kRmsNorm, Pass::kBackward).value() ==
        Work{0, (32 + 32 + 8 + 32 + 8) * 2 + 16});
  for (LocalOp op : {LocalOp::kChunkCopy, LocalOp::kPad, LocalOp::kUnpad,
                     LocalOp::kReorderAfterGather, LocalOp::kPartialScale}) {
    Work w = local_op_work(op, 1024, 2048).value();
    CHECK(w.bytes == 3072);
    CHECK(w.flops == 0);
    CHECK_FALSE(local_op_name(op).empty());
  }
  CHECK(local_op_name(LocalOp::kPartialScale) == "partial_scale");
  CHECK_FALSE(local_op_work(LocalOp::kPad, -1, 0).ok());
  CHECK_FALSE(norm_work(-4, 8, DType::kBF16, NormKind::kRmsNorm, Pass::kForward).ok());
}

}  // namespace
}  // namespace dtplan::cost
