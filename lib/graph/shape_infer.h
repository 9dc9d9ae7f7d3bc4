#pragma once
// Shape and dtype inference per op kind: what a node's outputs must be, given the metadata of its
// input slots and its attributes. validate() compares the declared outputs with this; the model
// builders use it to fill outputs in.
//
//   Node mm{.op = OpKind::kMm, ...};
//   TensorMeta a{{16, 4096}, kBF16}, b{{4096, 1024}, kBF16};
//   infer_outputs(mm, {&a, &b})->outputs == {TensorMeta{{16, 1024}, kBF16}}

#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "graph/node.h"
#include "graph/tensor_meta.h"

namespace dtplan::graph {

struct Inferred {
  // The expected outputs; with `exact` false, a checked prefix of them (SDPA's trailing RNG and
  // bookkeeping tensors, a fused norm's optional weight gradient), possibly empty (no rule:
  // placeholder, output, getitem, other).
  std::vector<TensorMeta> outputs;
  bool exact = true;
};

// @pre inputs.size() == node.inputs.size(), within op_info(node.op)'s input range.
// @post error (kBadInput) when the inputs or attributes are inconsistent for the op; the message
//   starts with the field at fault ("field 'inputs': ...", "field 'attrs'.'size': ...") and is
//   meant to be prefixed with the node label.
core::Result<Inferred> infer_outputs(const Node& node, std::span<const TensorMeta* const> inputs);

// NumPy/PyTorch broadcasting of two shapes. Example: broadcast_shapes({4,1,3}, {5,1}) ==
// {4,5,3}. @post error when a pair of trailing sizes differs and neither is 1.
core::Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Result dtype of a pointwise op in PyTorch's rules: dimensioned tensors outrank 0-d tensors,
// which outrank Python scalars; a lower-ranked operand changes the result only when its category
// (bool < integer < floating < complex) is higher. `scalars` holds the scalar operands' values.
// Example: promote_dtypes({bf16[4], f32[]}, {}) == bf16; promote_dtypes({i64[4]}, {0.5}) == f32.
core::DType promote_dtypes(std::span<const TensorMeta* const> tensors,
                           std::span<const AttrValue* const> scalars);

// Wraps a possibly negative dimension into [0, rank). A 0-d tensor accepts -1 and 0.
// @post error naming `field` when out of range.
core::Result<std::int64_t> normalize_dim(std::int64_t dim, std::size_t rank,
                                         std::string_view field);

}  // namespace dtplan::graph
