#pragma once
// OpKind: the aten operators of a traced joint (forward + backward) graph that dtplan understands,
// grouped into the families the strategy enumerators handle
// (docs/reference/strategy_selection.md §2). Names are the aten spellings without the "aten."
// namespace and overload ("mm", "_to_copy", "_scaled_dot_product_cudnn_attention"); anything else
// is `kOther` with its aten target kept.

#include <cstdint>
#include <span>
#include <string_view>

#include "core/result.h"

namespace dtplan::graph {

enum class OpKind : std::uint8_t {
  // leaves and the graph output
  kPlaceholder,
  kOutput,
  // factories
  kZeros,
  kOnes,
  kFull,
  kEmpty,
  kArange,
  // matmul family
  kMm,
  kBmm,
  kAddmm,
  kEinsum,
  // pointwise, one tensor input
  kNeg,
  kAbs,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kSigmoid,
  kTanh,
  kRelu,
  kGelu,
  kSilu,
  kClone,
  kToCopy,
  kDtypeCast,
  // pointwise, tensor(s) and optional scalar operand
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kRsub,
  kWhere,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  // reductions
  kSum,
  kMean,
  kAmax,
  kAmin,
  // softmax and fused norms
  kSoftmax,
  kSoftmaxBackward,
  kFusedRmsNorm,
  kFusedRmsNormBackward,
  // embedding
  kEmbedding,
  kEmbeddingDenseBackward,
  // view-likes
  kAlias,
  kView,
  kReshape,
  kUnsafeView,
  kPermute,
  kTranspose,
  kT,
  kExpand,
  kSqueeze,
  kUnsqueeze,
  kSlice,
  kSelect,
  kViewAsComplex,
  kViewAsReal,
  kConj,
  // tuples and concatenation
  kSplit,
  kSplitWithSizes,
  kGetitem,
  kCat,
  // attention
  kSdpaFlash,
  kSdpaEfficient,
  kSdpaCudnn,
  kSdpaFlashBackward,
  kSdpaEfficientBackward,
  kSdpaCudnnBackward,
  // escape: any other aten op, named by Node::target
  kOther,
};

// What the strategy layer dispatches on.
enum class OpFamily : std::uint8_t {
  kLeaf,
  kOutput,
  kFactory,
  kMatmul,
  kPointwise,
  kReduction,
  kSoftmax,
  kNorm,
  kEmbedding,
  kView,
  kTuple,
  kAttention,
  kOther,
};

// Static facts about one op kind.
struct OpInfo {
  OpKind kind;
  std::string_view name;  // the JSON spelling, e.g. "_to_copy"
  OpFamily family;
  int min_inputs;   // tensor inputs
  int max_inputs;   // -1: unbounded
  int min_outputs;  // tensor outputs
  int max_outputs;  // -1: unbounded
};

// Facts for `kind`. Example: op_info(OpKind::kMm).max_inputs == 2.
const OpInfo& op_info(OpKind kind);

// Every kind, in enum order.
std::span<const OpInfo> all_op_infos();

// The JSON spelling. Example: op_name(OpKind::kToCopy) == "_to_copy".
std::string_view op_name(OpKind kind);

std::string_view op_family_name(OpFamily family);

// Parses a JSON op spelling; also accepts "aten.<name>" and "aten.<name>.<overload>". Errors name
// `what` and suggest the closest known name ("did you mean 'einsum'?").
core::Result<OpKind> parse_op_kind(std::string_view text, std::string_view what);

inline OpFamily op_family(OpKind kind) { return op_info(kind).family; }

// True for the SDPA forward kinds (flash, efficient, cudnn).
bool is_sdpa_forward(OpKind kind);
// True for the SDPA backward kinds.
bool is_sdpa_backward(OpKind kind);

}  // namespace dtplan::graph
