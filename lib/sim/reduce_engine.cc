#include "sim/reduce_engine.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <vector>

#include "sim/reduce_kernels.h"
#include "sim/reduce_kernels_x86.h"

namespace dtplan::sim {

namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace): the engine's own kernels

template <bool kAvx2, class A, class Op, bool kScale, class... P>
void fold_into(typename A::S* acc, std::int64_t n, typename A::C scale, const P*... xs) {
#if DTPLAN_SIM_X86_KERNELS
  if constexpr (kAvx2) return fold_avx2<A, Op, kScale>(acc, n, scale, xs...);
#endif
  fold_body<A, Op, kScale>(acc, n, scale, xs...);
}

template <bool kAvx2, class A, class Op, bool kScaleA, bool kScaleB>
void combine(typename A::S* dst, const typename A::S* a, const typename A::S* b, std::int64_t n,
             typename A::C scale) {
#if DTPLAN_SIM_X86_KERNELS
  if constexpr (kAvx2) return combine_avx2<A, Op, kScaleA, kScaleB>(dst, a, b, n, scale);
#endif
  combine_body<A, Op, kScaleA, kScaleB>(dst, a, b, n, scale);
}

bool use_avx2(ReduceIsa isa) {
#if DTPLAN_SIM_X86_KERNELS
  return isa == ReduceIsa::kBest && cpu_has_avx2_f16c();
#else
  (void)isa;
  return false;
#endif
}

// The most program steps fused into one pass over a block.
constexpr std::size_t kMaxFused = 4;

template <class A, class Op, bool kPreMul, bool kAvx2>
class Runner {
  using S = typename A::S;
  using C = typename A::C;
  static constexpr std::int64_t kBlock = kReduceBlockBytes / static_cast<std::int64_t>(sizeof(S));

 public:
  Runner(std::span<const std::byte* const> inputs, bool post_divide)
      : inputs_(inputs), post_divide_(post_divide) {
    const auto n = static_cast<std::int64_t>(inputs.size());
    // 1/n computed in double, rounded to the compute type, then to the dtype.
    if constexpr (kPreMul) scale_ = A::round(static_cast<C>(1.0 / static_cast<double>(n)));
  }

  void run(std::span<const ReductionSegment> segments, const BlockSink& sink) {
    for (const ReductionSegment& seg : segments) {
      const ReductionProgram& p = seg.program;
      registers_.resize(static_cast<std::size_t>(p.registers) * kBlock);
      for (std::int64_t off = seg.begin; off < seg.end; off += kBlock) {
        const std::int64_t len = std::min(kBlock, seg.end - off);
        run_steps(p.steps, off, len);
        const S* result = operand(p.result, off);
        if (post_divide_ && !p.result.input) {  // (a one-rank group divides by 1)
          S* out = reg(p.result.index);
          const auto n = static_cast<S>(inputs_.size());
          for (std::int64_t i = 0; i < len; ++i) out[i] = static_cast<S>(result[i] / n);
          result = out;
        }
        sink(seg, off, reinterpret_cast<const std::byte*>(result), len);
      }
    }
  }

 private:
  S* reg(std::int32_t r) { return registers_.data() + static_cast<std::size_t>(r) * kBlock; }
  const S* operand(Operand o, std::int64_t off) {
    if (!o.input) return reg(o.index);
    return reinterpret_cast<const S*>(inputs_[static_cast<std::size_t>(o.index)]) + off;
  }

  // A step that adds an input to its own destination register.
  static bool adds_input(const ReductionStep& s) {
    return !s.lhs.input && s.lhs.index == s.dst && s.rhs.input;
  }

  void run_steps(const std::vector<ReductionStep>& steps, std::int64_t off, std::int64_t len) {
    for (std::size_t s = 0; s < steps.size();) {
      const ReductionStep& step = steps[s];
      S* dst = reg(step.dst);
      if (adds_input(step)) {
        std::size_t k = 1;
        while (k < kMaxFused && s + k < steps.size() && adds_input(steps[s + k]) &&
               steps[s + k].dst == step.dst) {
          ++k;
        }
        auto x = [&](std::size_t j) { return operand(steps[s + j].rhs, off); };
        switch (k) {
          case 1:
            fold_into<kAvx2, A, Op, kPreMul>(dst, len, scale_, x(0));
            break;
          case 2:
            fold_into<kAvx2, A, Op, kPreMul>(dst, len, scale_, x(0), x(1));
            break;
          case 3:
            fold_into<kAvx2, A, Op, kPreMul>(dst, len, scale_, x(0), x(1), x(2));
            break;
          default:
            fold_into<kAvx2, A, Op, kPreMul>(dst, len, scale_, x(0), x(1), x(2), x(3));
            break;
        }
        s += k;
        continue;
      }
      run_step(step, dst, off, len);
      ++s;
    }
  }

  void run_step(const ReductionStep& step, S* dst, std::int64_t off, std::int64_t len) {
    const S* rhs = operand(step.rhs, off);
    const bool scale_rhs = kPreMul && step.rhs.input;
    assert(step.rhs.input || step.rhs.index != step.dst);
    if (!step.lhs.input && step.lhs.index == step.dst) {  // adds a register (scaled already)
      fold_into<kAvx2, A, Op, false>(dst, len, scale_, rhs);
      return;
    }
    const S* lhs = operand(step.lhs, off);
    const bool scale_lhs = kPreMul && step.lhs.input;
    if (scale_lhs && scale_rhs) {
      combine<kAvx2, A, Op, kPreMul, kPreMul>(dst, lhs, rhs, len, scale_);
    } else if (scale_lhs) {
      combine<kAvx2, A, Op, kPreMul, false>(dst, lhs, rhs, len, scale_);
    } else if (scale_rhs) {
      combine<kAvx2, A, Op, false, kPreMul>(dst, lhs, rhs, len, scale_);
    } else {
      combine<kAvx2, A, Op, false, false>(dst, lhs, rhs, len, scale_);
    }
  }

  std::span<const std::byte* const> inputs_;
  bool post_divide_ = false;
  C scale_ = C(1);
  std::vector<S> registers_;
};

template <class A, class Op, bool kPreMul>
void run_op(std::span<const std::byte* const> inputs, bool post_divide,
            std::span<const ReductionSegment> segments, const BlockSink& sink, ReduceIsa isa) {
  if (use_avx2(isa)) {
    Runner<A, Op, kPreMul, true>(inputs, post_divide).run(segments, sink);
  } else {
    Runner<A, Op, kPreMul, false>(inputs, post_divide).run(segments, sink);
  }
}

template <class A>
void run_typed(ReduceOp op, std::span<const ReductionSegment> segments,
               std::span<const std::byte* const> inputs, const BlockSink& sink, ReduceIsa isa) {
  switch (op) {
    case ReduceOp::kSum:
      return run_op<A, Sum, false>(inputs, false, segments, sink, isa);
    case ReduceOp::kAvg:
      if constexpr (A::kFloat) {
        return run_op<A, Sum, true>(inputs, false, segments, sink, isa);
      } else {
        return run_op<A, Sum, false>(inputs, true, segments, sink, isa);
      }
    case ReduceOp::kMax:
      return run_op<A, Max, false>(inputs, false, segments, sink, isa);
    case ReduceOp::kMin:
      return run_op<A, Min, false>(inputs, false, segments, sink, isa);
  }
}

}  // namespace

bool reducible(core::DType dtype) {
  switch (dtype) {
    case core::DType::kF32:
    case core::DType::kBF16:
    case core::DType::kF16:
    case core::DType::kF64:
    case core::DType::kI32:
    case core::DType::kI64:
    case core::DType::kC64:
      return true;
    default:
      return false;
  }
}

bool reducible_by(core::DType dtype, ReduceOp op) {
  if (!reducible(dtype)) return false;
  return real_view(dtype).lanes == 1 || op == ReduceOp::kSum || op == ReduceOp::kAvg;
}

core::Status check_reducible(core::DType dtype, ReduceOp op, std::string_view context) {
  if (!reducible(dtype)) {
    return core::Error::unsupported(std::string(context) + ": dtype " +
                                    std::string(core::dtype_name(dtype)) +
                                    " cannot be reduced (f32, bf16, f16, f64, i32, i64, c64 can)");
  }
  if (!reducible_by(dtype, op)) {
    return core::Error::unsupported(
        std::string(context) + ": dtype " + std::string(core::dtype_name(dtype)) +
        " cannot be reduced by " + std::string(placement::reduce_op_name(op)) +
        " (complex dtypes reduce by sum and avg only)");
  }
  return {};
}

RealView real_view(core::DType dtype) {
  if (dtype == core::DType::kC64) return {core::DType::kF32, 2};
  return {dtype, 1};
}

void run_reduction(core::DType dtype, ReduceOp op, std::span<const ReductionSegment> segments,
                   std::span<const std::byte* const> inputs, const BlockSink& sink, ReduceIsa isa) {
  assert(reducible(dtype) && real_view(dtype).lanes == 1 && !inputs.empty());
  switch (dtype) {
    case core::DType::kF32:
      return run_typed<Plain<float>>(op, segments, inputs, sink, isa);
    case core::DType::kF64:
      return run_typed<Plain<double>>(op, segments, inputs, sink, isa);
    case core::DType::kBF16:
      return run_typed<BF16>(op, segments, inputs, sink, isa);
    case core::DType::kF16:
      return run_typed<F16>(op, segments, inputs, sink, isa);
    case core::DType::kI32:
      return run_typed<Plain<std::int32_t>>(op, segments, inputs, sink, isa);
    case core::DType::kI64:
      return run_typed<Plain<std::int64_t>>(op, segments, inputs, sink, isa);
    default:
      assert(false && "run_reduction: unsupported dtype");
      return;
  }
}

}  // namespace dtplan::sim
