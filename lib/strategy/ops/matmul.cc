// The mm family (docs/reference/strategy_selection.md §2.3, §2.5). Single-mesh-dim rows, [out ; a,
// b]:
//   mm   [m,k] x [k,n]:     R; M [S(0);S(0),R]; N [S(1);R,S(1)]; K [P;S(1),S(0)]
//   bmm  [b,m,k] x [b,k,n]: R; B [S(0);S(0),S(0)]; M [S(1);S(1),R]; N [S(2);R,S(2)];
//                           K [P;S(2),S(1)]
//   addmm(bias, a, b): the mm rows; the bias takes the output placement through broadcasting
//     (a shard of a dim the bias lacks or broadcasts becomes R; P stays P, as PyTorch's
//     map_placements_after_broadcast: with K split, each rank adds its share of the bias).
// With EnumerateOptions::strided_mm (AutoParallel PR #429), every split factor sf found on a
// _StridedShard of any producer option (ascending) adds, right after each sharded row, a variant
// with every Shard(d) of that row replaced by _StridedShard(d, sf).
//
//   mm on 8x8 with LLaMA3-8B shapes: 4 rows -> 16 strategies, all valid.

#include <set>

#include "graph/op_kind.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy::ops {
namespace {

using K = graph::OpKind;

Placement S(std::int32_t d) { return Placement::shard(d); }
const Placement kR = Placement::replicate();
const Placement kP = Placement::partial();

std::vector<DimRow> base_rows(K op) {
  if (op == K::kBmm) {
    return {{{kR}, {kR, kR}},
            {{S(0)}, {S(0), S(0)}},
            {{S(1)}, {S(1), kR}},
            {{S(2)}, {kR, S(2)}},
            {{kP}, {S(2), S(1)}}};
  }
  return {{{kR}, {kR, kR}}, {{S(0)}, {S(0), kR}}, {{S(1)}, {kR, S(1)}}, {{kP}, {S(1), S(0)}}};
}

// Split factors of every _StridedShard in the producers' options, ascending.
std::set<std::int64_t> strided_factors(const OpContext& ctx) {
  std::set<std::int64_t> out;
  for (const std::vector<Placements>& options : ctx.producers) {
    for (const Placements& list : options) {
      for (const Placement& p : list) {
        if (p.is_strided_shard()) out.insert(p.split_factor());
      }
    }
  }
  return out;
}

DimRow with_split_factor(DimRow row, std::int64_t sf) {
  auto convert = [sf](Placement& p) {
    if (p.is_shard()) p = Placement::strided_shard(p.dim(), sf);
  };
  for (Placement& p : row.outputs) convert(p);
  for (Placement& p : row.inputs) convert(p);
  return row;
}

}  // namespace

core::Result<RuleOutput> matmul_rule(const OpContext& ctx) {
  const K op = ctx.node.op;
  const std::size_t want_inputs = op == K::kAddmm ? 3 : 2;
  if (ctx.num_inputs() != want_inputs || ctx.num_outputs() != 1) {
    return core::Error::bad_input("field 'inputs': " + std::string(graph::op_name(op)) + " needs " +
                                  std::to_string(want_inputs) + " inputs, got " +
                                  std::to_string(ctx.num_inputs()));
  }
  const std::size_t a = op == K::kAddmm ? 1 : 0;
  const std::size_t rank = op == K::kBmm ? 3 : 2;
  if (ctx.in_shape(a).size() != rank || ctx.in_shape(a + 1).size() != rank) {
    return core::Error::bad_input("field 'inputs': " + std::string(graph::op_name(op)) + " needs " +
                                  std::to_string(rank) + "-d operands, got " +
                                  graph::format_shape(ctx.in_shape(a)) + " x " +
                                  graph::format_shape(ctx.in_shape(a + 1)));
  }
  std::vector<DimRow> rows;
  const std::set<std::int64_t> factors =
      ctx.options.strided_mm ? strided_factors(ctx) : std::set<std::int64_t>{};
  for (const DimRow& row : base_rows(op)) {
    rows.push_back(row);
    if (row.outputs[0].is_replicate()) continue;
    for (std::int64_t sf : factors) rows.push_back(with_split_factor(row, sf));
  }
  if (op == K::kAddmm) {
    const graph::Shape& out = ctx.out_shape(0);
    for (DimRow& row : rows) {
      row.inputs.insert(row.inputs.begin(),
                        broadcast_to_input(row.outputs[0], out, ctx.in_shape(0)));
    }
  }
  return expand(Rule::kMatmul, rows, ctx);
}

}  // namespace dtplan::strategy::ops
