#include "strategy/enumerate.h"

#include <unordered_map>

#include "core/hash.h"
#include "graph/op_kind.h"
#include "placement/tensor_spec.h"
#include "strategy/compute_cost.h"
#include "strategy/local_shapes.h"
#include "strategy/ops/ops.h"

namespace dtplan::strategy {
namespace {

using K = graph::OpKind;

std::size_t hash_lists(std::size_t seed, const std::vector<Placements>& lists) {
  for (const Placements& list : lists) seed = hash_placements(seed, list);
  return seed;
}

std::size_t hash_candidate(const Candidate& c) {
  std::size_t h = core::hash_combine(c.outputs.size(), c.masked_partial);
  return hash_lists(hash_lists(h, c.outputs), c.inputs);
}

bool same_placements(const Candidate& c, const Strategy& s) {
  return c.masked_partial == s.masked_partial && c.outputs == s.outputs && c.inputs == s.inputs;
}

bool lists_fit(const std::vector<Placements>& lists, std::span<const graph::TensorMeta> metas,
               std::span<const std::int64_t> mesh) {
  for (std::size_t i = 0; i < lists.size(); ++i) {
    if (!shardable(metas[i].shape, lists[i], mesh) || !partials_compatible(lists[i])) return false;
  }
  return true;
}

core::Result<ops::RuleOutput> run_rule(Rule rule, const ops::OpContext& ctx) {
  switch (rule) {
    case Rule::kLeaf:
    case Rule::kAlias:
      return ops::leaf_rule(ctx);
    case Rule::kFactory:
      return ctx.node.op == K::kOther ? ops::other_rule(ctx) : ops::factory_rule(ctx);
    case Rule::kMatmul:
      return ops::matmul_rule(ctx);
    case Rule::kEinsum:
      return ops::einsum_rule(ctx);
    case Rule::kPointwise:
      return ops::pointwise_rule(ctx);
    case Rule::kCast:
      return ops::cast_rule(ctx);
    case Rule::kReduction:
    case Rule::kNorm:
      if (ctx.node.op == K::kOther) return ops::other_rule(ctx);
      return rule == Rule::kNorm ? ops::norm_rule(ctx) : ops::reduction_rule(ctx);
    case Rule::kSoftmax:
      return ops::softmax_rule(ctx);
    case Rule::kEmbedding:
      return ops::embedding_rule(ctx);
    case Rule::kView:
      return ops::view_rule(ctx);
    case Rule::kTuple:
      return ops::tuple_rule(ctx);
    case Rule::kAttention:
      return ops::attention_rule(ctx);
    case Rule::kReplicate:
    case Rule::kOutput:
      break;
  }
  return ops::replicate_rule(ctx);
}

// Drops invalid candidates, merges duplicates (the first kept), builds the follower map and
// prices every strategy.
core::Result<OpStrategy> finalize(ops::RuleOutput&& out, const ops::OpContext& ctx,
                                  const cost::HardwareProfile& profile) {
  OpStrategy op;
  op.rule = out.rule;
  op.follows_slot = out.follows_slot;
  if (op.is_follower()) op.follower_map.assign(out.producer_count, -1);
  std::unordered_multimap<std::size_t, std::int32_t> seen;
  std::vector<graph::Shape> local_inputs(ctx.num_inputs());
  for (Candidate& c : out.candidates) {
    if (c.outputs.size() != ctx.num_outputs() || c.inputs.size() != ctx.num_inputs()) {
      return core::Error::internal("rule " + std::string(rule_name(out.rule)) +
                                   " built a candidate of the wrong arity");
    }
    if (!lists_fit(c.outputs, ctx.node.outputs, ctx.mesh) ||
        !lists_fit(c.inputs, ctx.inputs, ctx.mesh)) {
      continue;
    }
    const std::size_t h = hash_candidate(c);
    std::int32_t index = -1;
    for (auto [it, end] = seen.equal_range(h); it != end; ++it) {
      if (same_placements(c, op.strategies[static_cast<std::size_t>(it->second)])) {
        index = it->second;
        break;
      }
    }
    if (index < 0) {
      index = static_cast<std::int32_t>(op.strategies.size());
      seen.emplace(h, index);
      Strategy s;
      for (std::size_t o = 0; o < c.outputs.size(); ++o) {
        s.local_output_shapes.push_back(
            local_shape_at_origin(ctx.out_shape(o), c.outputs[o], ctx.mesh));
      }
      for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        local_inputs[i] = local_shape_at_origin(ctx.in_shape(i), c.inputs[i], ctx.mesh);
      }
      DTPLAN_TRY(s.compute_us,
                 compute_cost_us(ctx.node, out.rule, ctx.inputs, local_inputs,
                                 s.local_output_shapes, profile, ctx.options, ctx.fusion));
      s.outputs = std::move(c.outputs);
      s.inputs = std::move(c.inputs);
      s.masked_partial = c.masked_partial;
      op.strategies.push_back(std::move(s));
    }
    if (c.source >= 0 && static_cast<std::size_t>(c.source) < op.follower_map.size()) {
      op.follower_map[static_cast<std::size_t>(c.source)] = index;
    }
  }
  return op;
}

}  // namespace

Rule rule_for(const graph::Node& node) {
  switch (graph::op_family(node.op)) {
    case graph::OpFamily::kLeaf:
      return Rule::kLeaf;
    case graph::OpFamily::kOutput:
      return Rule::kOutput;
    case graph::OpFamily::kFactory:
      return Rule::kFactory;
    case graph::OpFamily::kMatmul:
      return node.op == K::kEinsum ? Rule::kEinsum : Rule::kMatmul;
    case graph::OpFamily::kPointwise:
      return node.op == K::kClone || node.op == K::kToCopy || node.op == K::kDtypeCast
                 ? Rule::kCast
                 : Rule::kPointwise;
    case graph::OpFamily::kReduction:
      return Rule::kReduction;
    case graph::OpFamily::kSoftmax:
      return Rule::kSoftmax;
    case graph::OpFamily::kNorm:
      return Rule::kNorm;
    case graph::OpFamily::kEmbedding:
      return Rule::kEmbedding;
    case graph::OpFamily::kView:
      return node.op == K::kAlias ? Rule::kAlias : Rule::kView;
    case graph::OpFamily::kTuple:
      return Rule::kTuple;
    case graph::OpFamily::kAttention:
      return Rule::kAttention;
    case graph::OpFamily::kOther:
      return ops::other_target_rule(node.target);
  }
  return Rule::kReplicate;
}

bool reads_producers(const graph::Node& node, const EnumerateOptions& options) {
  switch (rule_for(node)) {
    case Rule::kCast:
    case Rule::kReduction:
    case Rule::kSoftmax:
    case Rule::kNorm:
    case Rule::kView:
    case Rule::kTuple:
      return true;
    case Rule::kMatmul:
      return options.strided_mm;
    default:
      return false;
  }
}

core::Result<OpStrategy> enumerate_op(const OpRequest& request,
                                      std::span<const std::int64_t> mesh_sizes,
                                      const cost::HardwareProfile& profile,
                                      const EnumerateOptions& options) {
  const graph::Node& node = request.node;
  const std::string label = graph::node_label(node.name);
  if (auto st = placement::validate_mesh_sizes(mesh_sizes); !st.ok()) {
    return st.error().with_context(label);
  }
  const Rule rule = rule_for(node);
  if (rule == Rule::kOutput) return OpStrategy{Rule::kOutput, {}, -1, {}};
  const graph::OpInfo& info = graph::op_info(node.op);
  const auto n_in = static_cast<int>(request.inputs.size());
  const auto n_out = static_cast<int>(node.outputs.size());
  if (n_in < info.min_inputs || (info.max_inputs >= 0 && n_in > info.max_inputs) ||
      n_out < info.min_outputs || (info.max_outputs >= 0 && n_out > info.max_outputs) ||
      request.producer_options.size() > request.inputs.size()) {
    return core::Error::bad_input(label + ": " + std::to_string(n_in) + " inputs and " +
                                  std::to_string(n_out) + " outputs do not fit " +
                                  std::string(graph::op_name(node.op)));
  }
  for (std::size_t i = 0; i < request.producer_options.size(); ++i) {
    const auto rank = static_cast<std::int32_t>(request.inputs[i].shape.size());
    for (const Placements& p : request.producer_options[i]) {
      if (p.size() != mesh_sizes.size()) {
        return core::Error::bad_input(label + ": input " + std::to_string(i) +
                                      ": a producer option has " + std::to_string(p.size()) +
                                      " placements for " + std::to_string(mesh_sizes.size()) +
                                      " mesh dims");
      }
      for (const placement::Placement& q : p) {
        if (q.is_shard_like() && (q.dim() < 0 || q.dim() >= rank)) {
          return core::Error::bad_input(label + ": input " + std::to_string(i) +
                                        ": producer option " + placement::to_string(q) +
                                        " shards a dim outside the " + std::to_string(rank) +
                                        "-d input");
        }
      }
    }
  }
  const ops::OpContext ctx{node,       request.inputs, request.producer_options,
                           mesh_sizes, options,        request.fusion};
  auto out = run_rule(rule, ctx);
  if (!out.ok()) return out.error().with_context(label);
  auto op = finalize(std::move(out).value(), ctx, profile);
  if (!op.ok()) return op.error().with_context(label);
  return op;
}

}  // namespace dtplan::strategy
