#include "graph/op_kind.h"

#include <array>
#include <cassert>
#include <string>
#include <vector>

#include "core/strings.h"

namespace dtplan::graph {
namespace {

using F = OpFamily;
using K = OpKind;
constexpr int kAny = -1;

// One row per OpKind, in enum order (checked by op_info()).
constexpr std::array kOps = {
    OpInfo{K::kPlaceholder, "placeholder", F::kLeaf, 0, 0, 1, 1},
    OpInfo{K::kOutput, "output", F::kOutput, 0, kAny, 0, 0},
    OpInfo{K::kZeros, "zeros", F::kFactory, 0, 0, 1, 1},
    OpInfo{K::kOnes, "ones", F::kFactory, 0, 0, 1, 1},
    OpInfo{K::kFull, "full", F::kFactory, 0, 0, 1, 1},
    OpInfo{K::kEmpty, "empty", F::kFactory, 0, 0, 1, 1},
    OpInfo{K::kArange, "arange", F::kFactory, 0, 0, 1, 1},
    OpInfo{K::kMm, "mm", F::kMatmul, 2, 2, 1, 1},
    OpInfo{K::kBmm, "bmm", F::kMatmul, 2, 2, 1, 1},
    OpInfo{K::kAddmm, "addmm", F::kMatmul, 3, 3, 1, 1},
    OpInfo{K::kEinsum, "einsum", F::kMatmul, 1, kAny, 1, 1},
    OpInfo{K::kNeg, "neg", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kAbs, "abs", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kExp, "exp", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kLog, "log", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kSqrt, "sqrt", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kRsqrt, "rsqrt", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kReciprocal, "reciprocal", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kSigmoid, "sigmoid", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kTanh, "tanh", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kRelu, "relu", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kGelu, "gelu", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kSilu, "silu", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kClone, "clone", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kToCopy, "_to_copy", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kDtypeCast, "dtype_cast", F::kPointwise, 1, 1, 1, 1},
    OpInfo{K::kAdd, "add", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kSub, "sub", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kMul, "mul", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kDiv, "div", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kPow, "pow", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kRsub, "rsub", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kWhere, "where", F::kPointwise, 1, 3, 1, 1},
    OpInfo{K::kEq, "eq", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kNe, "ne", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kLt, "lt", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kLe, "le", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kGt, "gt", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kGe, "ge", F::kPointwise, 1, 2, 1, 1},
    OpInfo{K::kSum, "sum", F::kReduction, 1, 1, 1, 1},
    OpInfo{K::kMean, "mean", F::kReduction, 1, 1, 1, 1},
    OpInfo{K::kAmax, "amax", F::kReduction, 1, 1, 1, 1},
    OpInfo{K::kAmin, "amin", F::kReduction, 1, 1, 1, 1},
    OpInfo{K::kSoftmax, "_softmax", F::kSoftmax, 1, 1, 1, 1},
    OpInfo{K::kSoftmaxBackward, "_softmax_backward_data", F::kSoftmax, 2, 2, 1, 1},
    OpInfo{K::kFusedRmsNorm, "_fused_rms_norm", F::kNorm, 1, 2, 2, 2},
    OpInfo{K::kFusedRmsNormBackward, "_fused_rms_norm_backward", F::kNorm, 3, 4, 1, 2},
    OpInfo{K::kEmbedding, "embedding", F::kEmbedding, 2, 2, 1, 1},
    OpInfo{K::kEmbeddingDenseBackward, "embedding_dense_backward", F::kEmbedding, 2, 2, 1, 1},
    OpInfo{K::kAlias, "alias", F::kView, 1, 1, 1, 1},
    OpInfo{K::kView, "view", F::kView, 1, 1, 1, 1},
    OpInfo{K::kReshape, "reshape", F::kView, 1, 1, 1, 1},
    OpInfo{K::kUnsafeView, "_unsafe_view", F::kView, 1, 1, 1, 1},
    OpInfo{K::kPermute, "permute", F::kView, 1, 1, 1, 1},
    OpInfo{K::kTranspose, "transpose", F::kView, 1, 1, 1, 1},
    OpInfo{K::kT, "t", F::kView, 1, 1, 1, 1},
    OpInfo{K::kExpand, "expand", F::kView, 1, 1, 1, 1},
    OpInfo{K::kSqueeze, "squeeze", F::kView, 1, 1, 1, 1},
    OpInfo{K::kUnsqueeze, "unsqueeze", F::kView, 1, 1, 1, 1},
    OpInfo{K::kSlice, "slice", F::kView, 1, 1, 1, 1},
    OpInfo{K::kSelect, "select", F::kView, 1, 1, 1, 1},
    OpInfo{K::kViewAsComplex, "view_as_complex", F::kView, 1, 1, 1, 1},
    OpInfo{K::kViewAsReal, "view_as_real", F::kView, 1, 1, 1, 1},
    OpInfo{K::kConj, "_conj", F::kView, 1, 1, 1, 1},
    OpInfo{K::kSplit, "split", F::kTuple, 1, 1, 1, kAny},
    OpInfo{K::kSplitWithSizes, "split_with_sizes", F::kTuple, 1, 1, 1, kAny},
    OpInfo{K::kGetitem, "getitem", F::kTuple, 1, 1, 1, 1},
    OpInfo{K::kCat, "cat", F::kTuple, 1, kAny, 1, 1},
    OpInfo{K::kSdpaFlash, "_scaled_dot_product_flash_attention", F::kAttention, 3, 3, 2, kAny},
    OpInfo{K::kSdpaEfficient, "_scaled_dot_product_efficient_attention", F::kAttention, 3, 4, 2,
           kAny},
    OpInfo{K::kSdpaCudnn, "_scaled_dot_product_cudnn_attention", F::kAttention, 3, 4, 2, kAny},
    OpInfo{K::kSdpaFlashBackward, "_scaled_dot_product_flash_attention_backward", F::kAttention, 4,
           kAny, 3, 3},
    OpInfo{K::kSdpaEfficientBackward, "_scaled_dot_product_efficient_attention_backward",
           F::kAttention, 4, kAny, 3, 4},
    OpInfo{K::kSdpaCudnnBackward, "_scaled_dot_product_cudnn_attention_backward", F::kAttention, 4,
           kAny, 3, 3},
    OpInfo{K::kOther, "other", F::kOther, 0, kAny, 0, kAny},
};

static_assert(kOps.size() == static_cast<std::size_t>(OpKind::kOther) + 1);

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (static_cast<std::size_t>(kOps[i].kind) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kOps rows must follow the OpKind order");

}  // namespace

const OpInfo& op_info(OpKind kind) { return kOps[static_cast<std::size_t>(kind)]; }

std::span<const OpInfo> all_op_infos() { return kOps; }

std::string_view op_name(OpKind kind) { return op_info(kind).name; }

std::string_view op_family_name(OpFamily family) {
  switch (family) {
    case F::kLeaf:
      return "leaf";
    case F::kOutput:
      return "output";
    case F::kFactory:
      return "factory";
    case F::kMatmul:
      return "matmul";
    case F::kPointwise:
      return "pointwise";
    case F::kReduction:
      return "reduction";
    case F::kSoftmax:
      return "softmax";
    case F::kNorm:
      return "norm";
    case F::kEmbedding:
      return "embedding";
    case F::kView:
      return "view";
    case F::kTuple:
      return "tuple";
    case F::kAttention:
      return "attention";
    case F::kOther:
      return "other";
  }
  return "?";
}

core::Result<OpKind> parse_op_kind(std::string_view text, std::string_view what) {
  std::string_view name = text;
  // "aten.mm.default" -> "mm"; "aten.mm" -> "mm".
  if (name.starts_with("aten.")) {
    name.remove_prefix(5);
    std::size_t dot = name.find('.');
    if (dot != std::string_view::npos) name = name.substr(0, dot);
  }
  for (const OpInfo& info : kOps) {
    if (info.name == name) return info.kind;
  }
  std::vector<std::string> names;
  names.reserve(kOps.size());
  for (const OpInfo& info : kOps) names.emplace_back(info.name);
  std::string message = std::string(what) + ": unknown op '" + std::string(text) + "'";
  if (auto near = core::closest_name(name, names)) {
    message += " (did you mean '" + *near + "'?)";
  } else {
    message += " (use \"other\" with a \"target\" for ops dtplan does not model)";
  }
  return core::Error::bad_input(message);
}

bool is_sdpa_forward(OpKind kind) {
  return kind == K::kSdpaFlash || kind == K::kSdpaEfficient || kind == K::kSdpaCudnn;
}

bool is_sdpa_backward(OpKind kind) {
  return kind == K::kSdpaFlashBackward || kind == K::kSdpaEfficientBackward ||
         kind == K::kSdpaCudnnBackward;
}

}  // namespace dtplan::graph
