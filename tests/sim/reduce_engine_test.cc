#include "sim/reduce_engine.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "support/sim_reference.h"

namespace dtplan::sim {
namespace {

using core::DType;
using testing::element_bits;

constexpr DType kDTypes[] = {DType::kF32, DType::kBF16, DType::kF16,
                             DType::kF64, DType::kI32,  DType::kI64};
constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax, ReduceOp::kMin};

// Runs the engine over whole tensors and collects the results (element offsets as given).
Tensor run(DType dtype, ReduceOp op, const std::vector<ReductionSegment>& segments,
           const std::vector<Tensor>& inputs, std::int64_t numel,
           ReduceIsa isa = ReduceIsa::kBest) {
  Tensor out = Tensor::zeros(dtype, {numel}).value();
  std::vector<const std::byte*> ptrs;
  for (const Tensor& t : inputs) ptrs.push_back(t.data());
  const std::int64_t es = core::dtype_bytes(dtype);
  run_reduction(
      dtype, op, segments, ptrs,
      [&](const ReductionSegment&, std::int64_t offset, const std::byte* data, std::int64_t count) {
        std::memcpy(out.data() + offset * es, data, static_cast<std::size_t>(count * es));
      },
      isa);
  return out;
}

// The program evaluated on one element by the naive reference arithmetic.
std::uint64_t interpret(const ReductionProgram& p, const testing::RefArith& arith,
                        const std::vector<std::uint64_t>& x) {
  std::vector<std::uint64_t> regs(static_cast<std::size_t>(p.registers));
  auto value = [&](Operand o) {
    return o.input ? arith.read(x[static_cast<std::size_t>(o.index)])
                   : regs[static_cast<std::size_t>(o.index)];
  };
  for (const ReductionStep& s : p.steps) {
    regs[static_cast<std::size_t>(s.dst)] = arith.combine(value(s.lhs), value(s.rhs));
  }
  return arith.finish(value(p.result));
}

TEST_CASE("reduce engine: every dtype and op matches the naive per-element arithmetic") {
  std::mt19937_64 rng(2024);
  for (DType dtype : kDTypes) {
    for (ReduceOp op : kOps) {
      for (int iter = 0; iter < 3; ++iter) {
        const auto world = static_cast<std::int64_t>(2 + rng() % 24);
        const auto n = static_cast<std::int64_t>(2 + rng() % static_cast<std::uint64_t>(world - 1));
        const Group g = testing::random_groups(world, n, 1, rng)[0];
        const GroupLayout layout =
            group_layout(g, 1 + static_cast<std::int64_t>(rng() % 8), "g").value();
        // Sizes across the 8 KiB block boundary of every width.
        const auto numel = static_cast<std::int64_t>(rng() % 5000);
        std::vector<Tensor> inputs;
        for (std::int64_t i = 0; i < n; ++i)
          inputs.push_back(testing::random_tensor(dtype, {numel}, rng));
        const ReductionOrder order = iter % 2 == 0 ? ReductionOrder::kRing : ReductionOrder::kTree;
        const auto segments = all_reduce_segments(order, layout, numel);
        const Tensor out = run(dtype, op, segments, inputs, numel);
        // The baseline loops give the same bits as the fastest ones.
        CHECK(run(dtype, op, segments, inputs, numel, ReduceIsa::kBaseline) == out);
        const testing::RefArith arith{dtype, op, n};
        for (const ReductionSegment& seg : segments) {
          for (std::int64_t e = seg.begin; e < seg.end; ++e) {
            std::vector<std::uint64_t> x;
            for (const Tensor& t : inputs) x.push_back(element_bits(t, e));
            REQUIRE(element_bits(out, e) == interpret(seg.program, arith, x));
          }
        }
      }
    }
  }
}

TEST_CASE("reduce engine: integer sums are exact (wrapping) in any order") {
  std::mt19937_64 rng(3);
  for (DType dtype : {DType::kI32, DType::kI64}) {
    const Group g = {3, 9, 1, 14, 6, 0, 2};
    const GroupLayout layout = group_layout(g, 4, "g").value();
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < g.size(); ++i)
      inputs.push_back(testing::random_tensor(dtype, {3000}, rng));
    for (ReductionOrder order : {ReductionOrder::kRing, ReductionOrder::kTree}) {
      const Tensor out =
          run(dtype, ReduceOp::kSum, all_reduce_segments(order, layout, 3000), inputs, 3000);
      for (std::int64_t e = 0; e < 3000; ++e) {
        std::uint64_t sum = 0;
        for (const Tensor& t : inputs) sum += element_bits(t, e);
        const std::uint64_t mask = dtype == DType::kI32 ? 0xffffffffULL : ~0ULL;
        REQUIRE(element_bits(out, e) == (sum & mask));
      }
    }
  }
}

TEST_CASE("reduce engine: avg is premultiplied for floats and divided for integers") {
  const GroupLayout layout = group_layout(std::vector<std::int64_t>{0, 1, 2}, 8, "g").value();
  auto segments = all_reduce_segments(ReductionOrder::kRing, layout, 1);
  // Integers: sum 7 - 8 + 2 = 1, 1 / 3 truncates to 0; sum -7 truncates -7/3 to -2.
  auto ints = [&](std::vector<std::int32_t> v) {
    std::vector<Tensor> in;
    for (std::int32_t x : v) in.push_back(Tensor::from_values<std::int32_t>({1}, {x}).value());
    return run(DType::kI32, ReduceOp::kAvg, segments, in, 1).values<std::int32_t>()[0];
  };
  CHECK(ints({7, -8, 2}) == 0);
  CHECK(ints({-7, -1, 1}) == -2);
  CHECK(ints({9, 9, 9}) == 9);
  // bf16: 1/3 rounds to 0x3eab (0.333984375); three inputs of 6.0 premultiply to 2.00390625,
  // which rounds to 2.0 in bf16 (the ulp at 2 is 2^-6), so the average is exactly 6.0.
  std::vector<Tensor> six;
  for (int i = 0; i < 3; ++i) {
    six.push_back(
        Tensor::from_values<std::uint16_t>(DType::kBF16, {1}, std::vector<std::uint16_t>{0x40c0})
            .value());
  }
  CHECK(run(DType::kBF16, ReduceOp::kAvg, segments, six, 1).values<std::uint16_t>()[0] == 0x40c0);
  // f32 max/min ignore NaN operands.
  std::vector<Tensor> with_nan;
  for (float v : {NAN, -3.0f, 2.0f})
    with_nan.push_back(Tensor::from_values<float>({1}, {v}).value());
  CHECK(run(DType::kF32, ReduceOp::kMax, segments, with_nan, 1).values<float>()[0] == 2.0f);
  CHECK(run(DType::kF32, ReduceOp::kMin, segments, with_nan, 1).values<float>()[0] == -3.0f);
  CHECK(reducible(DType::kBF16));
  CHECK_FALSE(reducible(DType::kBool));
  CHECK_FALSE(reducible(DType::kF8E4M3));
  // Complex: pairs of f32, by sum and avg only.
  CHECK(reducible(DType::kC64));
  CHECK(reducible_by(DType::kC64, ReduceOp::kAvg));
  CHECK_FALSE(reducible_by(DType::kC64, ReduceOp::kMax));
  CHECK(reducible_by(DType::kF32, ReduceOp::kMin));
  CHECK_FALSE(reducible_by(DType::kBool, ReduceOp::kSum));
  CHECK(real_view(DType::kC64).dtype == DType::kF32);
  CHECK(real_view(DType::kC64).lanes == 2);
  CHECK(real_view(DType::kBF16).lanes == 1);
  CHECK(check_reducible(DType::kC64, ReduceOp::kMin, "x").error().message ==
        "x: dtype c64 cannot be reduced by min (complex dtypes reduce by sum and avg only)");
  CHECK(check_reducible(DType::kU8, ReduceOp::kSum, "x").error().message ==
        "x: dtype u8 cannot be reduced (f32, bf16, f16, f64, i32, i64, c64 can)");
}

}  // namespace
}  // namespace dtplan::sim
