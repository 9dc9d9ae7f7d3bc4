#include "strategy/float8_cost.h"

#include <doctest/doctest.h>

#include "strategy/compute_cost.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using core::DType;
using graph::OpKind;
using graph::TensorMeta;

// h100-dgx: bf16 989.4e12, f8e4m3 1978.9e12 FLOP/s dense; HBM 3.35e12 B/s at 0.7.
constexpr double kHbm = 3.35e12 * 0.7;

// x [1,8192,4096] times a [4096,4096] weight, all replicated on 8 ranks (the first strategy):
// 2^38 FLOPs, at the GEMM table's 0.751 + (0.801 - 0.751) / 3 between 2^37 and 2^40.
double wq_forward_us(DType weight, bool float8, const EnumerateOptions& options = {}) {
  graph::Attributes attrs{{"equation", std::string("abk,kn->abn")}};
  if (float8) attrs.set("float8", true);
  const OpStrategy op =
      testing::run_op(OpKind::kEinsum,
                      {TensorMeta{{1, 8192, 4096}, DType::kBF16}, TensorMeta{{4096, 4096}, weight}},
                      attrs, {8}, {}, options);
  return op.strategies.at(0).compute_us;
}

TEST_CASE("float8 cost: a dynamic-scale cast reads its input twice and writes one byte") {
  CHECK(float8_cast_bytes_per_element(DType::kBF16) == 5);
  CHECK(float8_cast_bytes_per_element(DType::kF32) == 9);
  CHECK(float8_cast_bytes_per_element(DType::kF8E4M3) == 0);
}

TEST_CASE("float8 cost: the GEMM runs at the fp8 peak, plus the casts of its bf16 operands") {
  const double flops = 274877906944.0;  // 2 x 8192 x 4096 x 4096 = 2^38
  const double eff = 0.751 + (0.801 - 0.751) / 3.0;
  const double bf16_us = wq_forward_us(DType::kBF16, false);
  CHECK(bf16_us == doctest::Approx(flops / (989.4e12 * eff) * 1e6));
  // Tensorwise: the weight is already fp8, only x (2^25 elements, 5 bytes each) is cast.
  const double cast_x_us = 5.0 * 33554432 / kHbm * 1e6;  // 71.5 µs
  const double gemm_us = flops / (1978.9e12 * eff) * 1e6;
  const double tensorwise_us = wq_forward_us(DType::kF8E4M3, true);
  CHECK(tensorwise_us == doctest::Approx(gemm_us + cast_x_us));
  // The GEMM alone: the ratio of the two peaks, 1978.9 / 989.4.
  CHECK(bf16_us / (tensorwise_us - cast_x_us) == doctest::Approx(1978.9 / 989.4));
  // Rowwise: the weight is bf16 and cast too (2^24 elements).
  const double cast_w_us = 5.0 * 16777216 / kHbm * 1e6;
  CHECK(wq_forward_us(DType::kBF16, true) == doctest::Approx(gemm_us + cast_x_us + cast_w_us));
}

TEST_CASE("float8 cost: compiled blocks fuse the cast, half of the saving realized") {
  const EnumerateOptions compiled{.execution = core::Execution::kCompiled};
  const double eager_cast = 5.0 * 33554432 / kHbm * 1e6;
  const double fused_cast = 33554432 / kHbm * 1e6;  // the fp8 write only
  const double expected_cast = eager_cast - kCompiledFusionShare * (eager_cast - fused_cast);
  CHECK(wq_forward_us(DType::kF8E4M3, true, compiled) - wq_forward_us(DType::kF8E4M3, true) ==
        doctest::Approx(expected_cast - eager_cast));
  // A tiny cast pays the launch floor when eager (7 µs on h100-dgx).
  const cost::HardwareProfile profile = testing::h100();
  const TensorMeta x{{4, 8}, DType::kBF16};
  const graph::Shape local{4, 8};
  CHECK(float8_cast_us({&x, 1}, {&local, 1}, profile, core::Execution::kEager).value() == 7.0);
}

TEST_CASE("float8 cost: only einsums tagged float8 are float8 GEMMs") {
  graph::Node n;
  n.op = OpKind::kEinsum;
  CHECK(!is_float8_gemm(n));
  n.attrs.set("float8", true);
  CHECK(is_float8_gemm(n));
  n.op = OpKind::kMm;
  CHECK(!is_float8_gemm(n));
}

}  // namespace
}  // namespace dtplan::strategy
