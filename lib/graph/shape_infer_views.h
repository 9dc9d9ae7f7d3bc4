#pragma once
// Shape inference for the view-like and tuple families (alias, view/reshape, permute, transpose,
// expand, squeeze/unsqueeze, slice/select, view_as_complex/real, split, cat). Part of
// infer_outputs() (shape_infer.h); separate only to keep files short.

#include <span>

#include "core/result.h"
#include "graph/node.h"
#include "graph/shape_infer.h"

namespace dtplan::graph {

// @pre op_family(node.op) is kView or kTuple; inputs as for infer_outputs().
// getitem has no rule here (it reads the producer's tuple; validate() checks it).
core::Result<Inferred> infer_view_like(const Node& node, std::span<const TensorMeta* const> inputs);

// One output of `shape` and `dtype`.
inline Inferred single_output(Shape shape, core::DType dtype) {
  return Inferred{{TensorMeta{std::move(shape), dtype}}};
}

// "field 'inputs': " + message, the error for inputs that do not fit the op.
inline core::Error inputs_error(const std::string& message) {
  return core::Error::bad_input("field 'inputs': " + message);
}

}  // namespace dtplan::graph
