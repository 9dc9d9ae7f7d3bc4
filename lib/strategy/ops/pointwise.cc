// Pointwise ops (docs/reference/strategy_selection.md §2.6) and the casts that follow their input.
//
// Elementwise single-mesh-dim rows, [out ; inputs]: R; then for each output dim d, [S(d) ; every
// input through broadcasting] (an input that lacks d or broadcasts it gets R); then the Partial
// rows of the op's class, in this order (P = P(sum), "x" the first tensor, "y" the second, a
// scalar operand counts as a replicated y):
//   add, sub (two tensors)   [P;P,P] [P(avg);P(avg),P(avg)] [P(avg);P(avg),R] [P(max);P(max),R]
//                            [P(min);P(min),R] [P(avg);R,P(avg)]
//   add, sub (x, scalar)     [P(avg);P(avg)] [P(max);P(max)] [P(min);P(min)]
//   rsub = y - x             sub's rows with the inputs swapped; (x, scalar): [P(avg);P(avg)]
//   mul (two tensors)        [P;P,R] [P;R,P] [P(avg);P(avg),R] [P(avg);R,P(avg)]
//   mul, div (x, scalar); neg        [P;P] [P(avg);P(avg)]
//   div (two tensors)        [P;P,R] [P(avg);P(avg),R] (numerator only; none with rounding_mode)
//   exp, log, sqrt, sigmoid, tanh, relu (monotone increasing)   [P(max);P(max)] [P(min);P(min)]
//   others (pow, rsqrt, reciprocal, abs, gelu, silu, where, comparisons): none
// Each Partial row is an identity of the op: e.g. max_i(x_i) - c == max_i(x_i - c), and
// sum_i(x_i) * y == sum_i(x_i * y).
//
// Casts (_to_copy, dtype_cast) and clone follow their input: one strategy per producer option,
// output = input placement, Partial included (AutoParallel's dtype_cast rule, DTensor's
// propagate_single_input_strategy).

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {
namespace {

using K = graph::OpKind;
using placement::ReduceOp;

Placement P(ReduceOp op = ReduceOp::kSum) { return Placement::partial(op); }
const Placement kR = Placement::replicate();

// Partial rows as (output, inputs) for a one- or two-tensor op.
std::vector<DimRow> partial_rows(const graph::Node& node, std::size_t tensors) {
  const ReduceOp sum = ReduceOp::kSum, avg = ReduceOp::kAvg, max = ReduceOp::kMax,
                 min = ReduceOp::kMin;
  auto unary = [](std::initializer_list<ReduceOp> ops) {
    std::vector<DimRow> rows;
    for (ReduceOp op : ops) rows.push_back({{P(op)}, {P(op)}});
    return rows;
  };
  std::vector<DimRow> sub_rows = {{{P()}, {P(), P()}},      {{P(avg)}, {P(avg), P(avg)}},
                                  {{P(avg)}, {P(avg), kR}}, {{P(max)}, {P(max), kR}},
                                  {{P(min)}, {P(min), kR}}, {{P(avg)}, {kR, P(avg)}}};
  switch (node.op) {
    case K::kAdd:
    case K::kSub:
      return tensors == 2 ? sub_rows : unary({avg, max, min});
    case K::kRsub:
      if (tensors == 1) return unary({avg});
      for (DimRow& row : sub_rows) std::swap(row.inputs[0], row.inputs[1]);
      return sub_rows;
    case K::kMul:
      if (tensors == 1) return unary({sum, avg});
      return {{{P()}, {P(), kR}},
              {{P()}, {kR, P()}},
              {{P(avg)}, {P(avg), kR}},
              {{P(avg)}, {kR, P(avg)}}};
    case K::kDiv:
      if (node.attrs.contains("rounding_mode")) return {};
      if (tensors == 1) return unary({sum, avg});
      return {{{P()}, {P(), kR}}, {{P(avg)}, {P(avg), kR}}};
    case K::kNeg:
      return unary({sum, avg});
    case K::kExp:
    case K::kLog:
    case K::kSqrt:
    case K::kSigmoid:
    case K::kTanh:
    case K::kRelu:
      return unary({max, min});
    default:
      return {};
  }
}

}  // namespace

core::Result<RuleOutput> pointwise_rule(const OpContext& ctx) {
  if (ctx.num_outputs() != 1 || ctx.num_inputs() == 0) {
    return core::Error::bad_input("field 'inputs': a pointwise op needs inputs and one output");
  }
  const graph::Shape& out = ctx.out_shape(0);
  std::vector<DimRow> rows = {{{kR}, std::vector<Placement>(ctx.num_inputs(), kR)}};
  for (std::size_t d = 0; d < out.size(); ++d) {
    DimRow row{{Placement::shard(static_cast<std::int32_t>(d))}, {}};
    for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
      row.inputs.push_back(broadcast_to_input(row.outputs[0], out, ctx.in_shape(i)));
    }
    rows.push_back(std::move(row));
  }
  if (ctx.num_inputs() <= 2) {
    for (DimRow& row : partial_rows(ctx.node, ctx.num_inputs())) rows.push_back(std::move(row));
  }
  return expand(Rule::kPointwise, rows, ctx);
}

core::Result<RuleOutput> cast_rule(const OpContext& ctx) {
  if (ctx.num_inputs() != 1 || ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'inputs': a cast has one input and one output");
  }
  return follow(Rule::kCast, ctx, 0, [](const Placements& src) -> std::optional<Candidate> {
    return uniform_candidate(src, 1, 1);
  });
}

}  // namespace dtplan::strategy::ops
