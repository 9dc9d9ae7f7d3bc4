#include "cost/roofline.h"

#include <doctest/doctest.h>

#include <random>

#include "cost/compute_work.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using core::DType;
using testing::profile;

TEST_CASE("roofline: AutoParallel's worked examples on H100") {
  HardwareProfile h100 = profile("h100-dgx");
  // wq forward einsum, x [2,8192,4096] x w [4096,512] in bf16: 68.7 GFLOP -> compute-bound,
  // 68719476736 / (989.4e12 x 0.7) = 99.22 us (AutoParallel: 99.3 us with 989 TFLOPS).
  std::vector<std::vector<std::int64_t>> shapes = {{2, 8192, 4096}, {4096, 512}};
  Work w = einsum_work("bsd,dh->bsh", shapes, DType::kBF16, Pass::kForward).value();
  CHECK(w.flops == 68719476736.0);
  CHECK(w.bytes == 155189248);  // 155 MB of operands and output
  ComputeCost c = roofline(w, DType::kBF16, h100).value();
  CHECK(c.bound == Bound::kCompute);
  CHECK(c.time_us == doctest::Approx(99.22).epsilon(1e-3));
  CHECK(std::abs(c.time_us - 99.3) < 0.1);
  // A bf16 unary pointwise op on [2,1024,4096]: 32 MiB of traffic. With SI HBM bandwidth
  // (3.35e12 B/s x 0.7) that is 14.31 us (AutoParallel's 13.0 us divides by 3.35 x 1024^4).
  std::int64_t numel = 2 * 1024 * 4096;
  std::int64_t in[] = {numel};
  ComputeCost pw =
      roofline(pointwise_work(in, numel, DType::kBF16).value(), DType::kBF16, h100).value();
  CHECK(pw.bound == Bound::kMemory);
  CHECK(pw.time_us == doctest::Approx(33554432 / (3.35e12 * 0.7) * 1e6));
  // Tiny ops are floored at the launch floor (7 us).
  ComputeCost tiny = roofline(copy_work(16, DType::kF32).value(), DType::kF32, h100).value();
  CHECK(tiny.time_us == 7.0);
  CHECK(tiny.bound == Bound::kLaunch);
}

TEST_CASE("roofline: the max of its terms, monotone in work") {
  HardwareProfile h100 = profile("h100-dgx");
  std::mt19937_64 rng(17);
  for (int i = 0; i < 500; ++i) {
    Work w{static_cast<double>(rng() % (1ULL << 42)), static_cast<std::int64_t>(rng() % (1 << 30))};
    ComputeCost c = roofline(w, DType::kBF16, h100).value();
    CHECK(c.time_us >= c.compute_us);
    CHECK(c.time_us >= c.memory_us);
    CHECK(c.time_us >= h100.compute.launch_floor_us);
    CHECK((c.time_us == c.compute_us || c.time_us == c.memory_us ||
           c.time_us == h100.compute.launch_floor_us));
    Work more{w.flops * 2, w.bytes * 2};
    CHECK(roofline(more, DType::kBF16, h100).value().time_us >= c.time_us);
  }
  // No peak for the dtype: an error only when there are FLOPs to price.
  HardwareProfile a100 = profile("a100-dgx");
  CHECK_FALSE(roofline(Work{1e9, 0}, DType::kF8E4M3, a100).ok());
  CHECK(roofline(Work{0, 1 << 20}, DType::kF8E4M3, a100).ok());
  CHECK_FALSE(roofline(Work{-1, 0}, DType::kBF16, a100).ok());
}

TEST_CASE("roofline: local redistribution steps are memory traffic, never free") {
  HardwareProfile h100 = profile("h100-dgx");
  std::int64_t gib = std::int64_t{1} << 30;
  ComputeCost copy = local_op_cost(LocalOp::kChunkCopy, gib, gib, h100).value();
  CHECK(copy.time_us == doctest::Approx(2.0 * gib / (3.35e12 * 0.7) * 1e6));
  CHECK(copy.bound == Bound::kMemory);
  // Replicate -> Partial(sum) divides by the group size: a pass over the tensor.
  ComputeCost scale = local_op_cost(LocalOp::kPartialScale, 4096, 4096, h100).value();
  CHECK(scale.time_us == h100.compute.launch_floor_us);
  CHECK(scale.time_us > 0);
  CHECK(local_op_cost(LocalOp::kReorderAfterGather, gib, gib, h100).value().time_us >
        local_op_cost(LocalOp::kReorderAfterGather, gib / 2, gib / 2, h100).value().time_us);
  CHECK_FALSE(local_op_cost(LocalOp::kPad, -1, 0, h100).ok());
}

}  // namespace
}  // namespace dtplan::cost
