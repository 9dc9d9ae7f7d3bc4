#include "strategy/strategy.h"

#include "core/hash.h"
#include "placement/placement_text.h"

namespace dtplan::strategy {

std::string_view rule_name(Rule rule) {
  switch (rule) {
    case Rule::kLeaf:
      return "leaf";
    case Rule::kAlias:
      return "alias";
    case Rule::kFactory:
      return "factory";
    case Rule::kMatmul:
      return "matmul";
    case Rule::kEinsum:
      return "einsum";
    case Rule::kPointwise:
      return "pointwise";
    case Rule::kCast:
      return "cast";
    case Rule::kReduction:
      return "reduction";
    case Rule::kSoftmax:
      return "softmax";
    case Rule::kNorm:
      return "norm";
    case Rule::kEmbedding:
      return "embedding";
    case Rule::kView:
      return "view";
    case Rule::kTuple:
      return "tuple";
    case Rule::kAttention:
      return "attention";
    case Rule::kReplicate:
      return "replicate";
    case Rule::kOutput:
      return "output";
  }
  return "?";
}

namespace {

std::string format_lists(const std::vector<Placements>& lists, placement::MeshDimMask masked) {
  std::string out;
  for (std::size_t i = 0; i < lists.size(); ++i) {
    if (i > 0) out += "; ";
    for (std::size_t k = 0; k < lists[i].size(); ++k) {
      if (k > 0) out += ',';
      out += placement::to_string(lists[i][k]);
      if (i == 0 && lists[i][k].is_partial() && ((masked >> k) & 1U) != 0) out += '*';
    }
  }
  return out;
}

}  // namespace

std::string format_strategy(const Strategy& strategy) {
  std::string out = format_lists(strategy.outputs, strategy.masked_partial);
  out += " <-";
  if (!strategy.inputs.empty()) out += ' ' + format_lists(strategy.inputs, 0);
  return out;
}

std::size_t hash_placements(std::size_t seed, const Placements& list) {
  seed = core::hash_combine(seed, list.size());
  for (const placement::Placement& p : list) {
    seed = core::hash_combine(seed, placement::hash_value(p));
  }
  return seed;
}

std::vector<Placements> output_options(const OpStrategy& op, std::size_t index) {
  std::vector<Placements> out;
  out.reserve(op.strategies.size());
  for (const Strategy& s : op.strategies) out.push_back(s.outputs[index]);
  return out;
}

}  // namespace dtplan::strategy
