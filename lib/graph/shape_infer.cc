#include "graph/shape_infer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/checked.h"
#include "graph/einsum.h"
#include "graph/shape_infer_views.h"

namespace dtplan::graph {
namespace {

using core::DType;
using core::Error;
using core::Result;
using K = OpKind;

int category(DType d) {
  switch (d) {
    case DType::kBool:
      return 0;
    case DType::kU8:
    case DType::kI8:
    case DType::kI32:
    case DType::kI64:
      return 1;
    case DType::kC64:
      return 3;
    default:
      return 2;
  }
}

// Rank within a category (bigger holds more).
int width_rank(DType d) {
  switch (d) {
    case DType::kF8E4M3:
      return 0;
    case DType::kF16:
    case DType::kBF16:
      return 1;
    case DType::kF32:
      return 2;
    case DType::kF64:
      return 3;
    case DType::kU8:
    case DType::kI8:
      return 0;
    case DType::kI32:
      return 1;
    case DType::kI64:
      return 2;
    default:
      return 0;
  }
}

// torch.promote_types for the dtypes dtplan represents. Pairs whose PyTorch result dtplan does
// not represent map to the nearest wider one: u8+i8 (int16) -> i32.
DType promote_pair(DType a, DType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 3) return DType::kC64;
  if ((a == DType::kF16 && b == DType::kBF16) || (a == DType::kBF16 && b == DType::kF16)) {
    return DType::kF32;
  }
  if ((a == DType::kU8 && b == DType::kI8) || (a == DType::kI8 && b == DType::kU8)) {
    return DType::kI32;
  }
  return width_rank(a) >= width_rank(b) ? a : b;
}

DType default_for_category(int cat) {
  switch (cat) {
    case 0:
      return DType::kBool;
    case 1:
      return DType::kI64;
    case 3:
      return DType::kC64;
    default:
      return DType::kF32;
  }
}

int scalar_category(const AttrValue& v) {
  if (std::holds_alternative<bool>(v)) return 0;
  if (std::holds_alternative<std::int64_t>(v)) return 1;
  return 2;
}

// ---- pointwise ---------------------------------------------------------------------------------

bool is_float_only_unary(K op) {
  return op == K::kRsqrt || op == K::kSqrt || op == K::kExp || op == K::kLog || op == K::kSigmoid ||
         op == K::kTanh || op == K::kReciprocal || op == K::kGelu || op == K::kSilu;
}

bool is_comparison(K op) {
  return op == K::kEq || op == K::kNe || op == K::kLt || op == K::kLe || op == K::kGt ||
         op == K::kGe;
}

Result<Inferred> infer_pointwise(const Node& node, std::span<const TensorMeta* const> in) {
  Shape shape = in[0]->shape;
  for (std::size_t i = 1; i < in.size(); ++i) {
    auto b = broadcast_shapes(shape, in[i]->shape);
    if (!b.ok()) {
      return inputs_error("shapes " + format_shape(shape) + " and " + format_shape(in[i]->shape) +
                          " do not broadcast");
    }
    shape = std::move(b).value();
  }
  if (node.op == K::kToCopy || node.op == K::kDtypeCast) {
    if (node.op == K::kToCopy && !node.attrs.contains("dtype"))
      return single_output(shape, in[0]->dtype);
    DTPLAN_TRY(DType d, node.attrs.get_dtype("dtype"));
    return single_output(std::move(shape), d);
  }
  if (is_comparison(node.op)) return single_output(std::move(shape), DType::kBool);
  // Tensors and scalar operands that take part in type promotion.
  std::span<const TensorMeta* const> tensors = in;
  if (node.op == K::kWhere && !in.empty()) tensors = in.subspan(1);  // the condition does not
  std::vector<const AttrValue*> scalars;
  for (const char* name : {"other", "exponent", "self"}) {
    if (const AttrValue* v = node.attrs.find(name)) scalars.push_back(v);
  }
  DType d = tensors.empty() ? (scalars.empty() ? in[0]->dtype
                                               : default_for_category(scalar_category(*scalars[0])))
                            : promote_dtypes(tensors, scalars);
  const bool true_division = node.op == K::kDiv && !node.attrs.contains("rounding_mode");
  if ((is_float_only_unary(node.op) || true_division) && category(d) < 2) d = DType::kF32;
  return single_output(std::move(shape), d);
}

// ---- matmul ------------------------------------------------------------------------------------

Result<Inferred> infer_matmul(const Node& node, std::span<const TensorMeta* const> in) {
  auto mismatch = [&](std::string_view what, const Shape& a, const Shape& b) {
    return inputs_error(std::string(what) + ", got " + format_shape(a) + " x " + format_shape(b));
  };
  switch (node.op) {
    case K::kMm: {
      const Shape &a = in[0]->shape, &b = in[1]->shape;
      if (a.size() != 2 || b.size() != 2 || a[1] != b[0]) {
        return mismatch("mm needs [m,k] x [k,n]", a, b);
      }
      return single_output({a[0], b[1]}, in[0]->dtype);
    }
    case K::kBmm: {
      const Shape &a = in[0]->shape, &b = in[1]->shape;
      if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1]) {
        return mismatch("bmm needs [b,m,k] x [b,k,n]", a, b);
      }
      return single_output({a[0], a[1], b[2]}, in[0]->dtype);
    }
    case K::kAddmm: {
      const Shape &a = in[1]->shape, &b = in[2]->shape;
      if (a.size() != 2 || b.size() != 2 || a[1] != b[0]) {
        return mismatch("addmm needs bias, [m,k] x [k,n]", a, b);
      }
      Shape out{a[0], b[1]};
      auto bias = broadcast_shapes(in[0]->shape, out);
      if (!bias.ok() || *bias != out) {
        return inputs_error("addmm bias " + format_shape(in[0]->shape) + " does not broadcast to " +
                            format_shape(out));
      }
      return single_output(std::move(out), in[1]->dtype);
    }
    default: {  // einsum
      DTPLAN_TRY(std::string equation, node.attrs.get_string("equation"));
      DTPLAN_TRY(EinsumSpec spec, parse_einsum(equation, attr_field("equation")));
      std::vector<const Shape*> shapes;
      for (const TensorMeta* m : in) shapes.push_back(&m->shape);
      auto out = einsum_output_shape(spec, shapes, "einsum '" + equation + "'");
      if (!out.ok()) return inputs_error(out.error().message);
      return single_output(std::move(out).value(), in[0]->dtype);
    }
  }
}

// ---- reductions, softmax, norms, embedding ------------------------------------------------------

Result<Inferred> infer_reduction(const Node& node, const TensorMeta& in) {
  const std::size_t rank = in.shape.size();
  std::vector<bool> reduced(rank, false);
  std::vector<std::int64_t> dims;
  if (node.attrs.contains("dim")) {
    DTPLAN_TRY(dims, node.attrs.get_int_list("dim"));
  }
  if (dims.empty()) {
    reduced.assign(rank, true);  // dim=None or dim=[]: reduce everything
  }
  for (std::int64_t d : dims) {
    DTPLAN_TRY(std::int64_t nd, normalize_dim(d, rank, attr_field("dim")));
    if (rank == 0) continue;
    if (reduced[nd]) {
      return Error::bad_input(attr_field("dim") + ": dimension " + std::to_string(nd) +
                              " appears twice");
    }
    reduced[nd] = true;
  }
  DTPLAN_TRY(bool keepdim, node.attrs.get_bool_or("keepdim", false));
  Shape out;
  for (std::size_t i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out.push_back(in.shape[i]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  DType d = in.dtype;
  if (node.attrs.contains("dtype")) {
    DTPLAN_TRY(d, node.attrs.get_dtype("dtype"));
  } else if (node.op == K::kSum && category(d) < 2) {
    d = DType::kI64;
  } else if (node.op == K::kMean && category(d) < 2) {
    return inputs_error("mean needs a floating-point input, got " + format_meta(in));
  }
  return single_output(std::move(out), d);
}

Result<Inferred> infer_softmax(const Node& node, std::span<const TensorMeta* const> in) {
  DTPLAN_TRY(std::int64_t dim, node.attrs.get_int("dim"));
  DTPLAN_CHECK(normalize_dim(dim, in[0]->shape.size(), attr_field("dim")));
  if (node.op == K::kSoftmax) {
    DTPLAN_TRY(bool half_to_float, node.attrs.get_bool_or("half_to_float", false));
    DType d = in[0]->dtype;
    if (half_to_float && (d == DType::kF16 || d == DType::kBF16)) d = DType::kF32;
    return single_output(in[0]->shape, d);
  }
  if (in[0]->shape != in[1]->shape) {
    return inputs_error("grad " + format_shape(in[0]->shape) + " and output " +
                        format_shape(in[1]->shape) + " differ");
  }
  DType d = in[0]->dtype;
  if (node.attrs.contains("input_dtype")) {
    DTPLAN_TRY(d, node.attrs.get_dtype("input_dtype"));
  }
  return single_output(in[0]->shape, d);
}

Result<Inferred> infer_norm(const Node& node, std::span<const TensorMeta* const> in) {
  // Forward: (input, [weight]) -> (output, rstd). Backward: (grad, input, rstd, [weight]) ->
  // (grad_input, [grad_weight]).
  const bool forward = node.op == K::kFusedRmsNorm;
  const TensorMeta& x = forward ? *in[0] : *in[1];
  DTPLAN_TRY(std::vector<std::int64_t> normalized, node.attrs.get_ints("normalized_shape"));
  const std::size_t k = normalized.size();
  if (k == 0 || k > x.shape.size() ||
      !std::equal(normalized.begin(), normalized.end(), x.shape.end() - static_cast<long>(k))) {
    return Error::bad_input(attr_field("normalized_shape") + ": " + format_shape(normalized) +
                            " is not a suffix of the input shape " + format_shape(x.shape));
  }
  const std::size_t weight_slot = forward ? 1 : 3;
  if (in.size() > weight_slot && in[weight_slot]->shape != normalized) {
    return inputs_error("weight " + format_shape(in[weight_slot]->shape) + " differs from " +
                        format_shape(normalized));
  }
  if (!forward) return Inferred{{TensorMeta{x.shape, in[0]->dtype}}, false};
  Shape rstd(x.shape.begin(), x.shape.end() - static_cast<long>(k));
  rstd.insert(rstd.end(), k, 1);
  DType acc = (x.dtype == DType::kBF16 || x.dtype == DType::kF16) ? DType::kF32 : x.dtype;
  return Inferred{{TensorMeta{x.shape, x.dtype}, TensorMeta{std::move(rstd), acc}}};
}

Result<Inferred> infer_embedding(const Node& node, std::span<const TensorMeta* const> in) {
  const TensorMeta& idx = *in[1];
  if (category(idx.dtype) != 1) {
    return inputs_error("indices must be integers, got " + format_meta(idx));
  }
  if (node.op == K::kEmbedding) {
    const TensorMeta& w = *in[0];
    if (w.shape.size() != 2) return inputs_error("weight must be 2-D, got " + format_meta(w));
    Shape out = idx.shape;
    out.push_back(w.shape[1]);
    return single_output(std::move(out), w.dtype);
  }
  const TensorMeta& grad = *in[0];
  if (grad.shape.size() != idx.shape.size() + 1 ||
      !std::equal(idx.shape.begin(), idx.shape.end(), grad.shape.begin())) {
    return inputs_error("grad " + format_shape(grad.shape) + " must be indices " +
                        format_shape(idx.shape) + " plus the embedding dim");
  }
  DTPLAN_TRY(std::int64_t num_weights, node.attrs.get_int("num_weights"));
  if (num_weights < 0) {
    return Error::bad_input(attr_field("num_weights") + ": must be >= 0, got " +
                            std::to_string(num_weights));
  }
  return single_output({num_weights, grad.shape.back()}, grad.dtype);
}

// ---- attention ---------------------------------------------------------------------------------

Result<Inferred> infer_sdpa(const Node& node, std::span<const TensorMeta* const> in) {
  const bool forward = is_sdpa_forward(node.op);
  const std::size_t q_slot = forward ? 0 : 1;
  const TensorMeta &q = *in[q_slot], &k = *in[q_slot + 1], &v = *in[q_slot + 2];
  const Shape &qs = q.shape, &ks = k.shape, &vs = v.shape;
  if (qs.size() != 4 || ks.size() != 4 || vs.size() != 4) {
    return inputs_error("attention needs 4-D q, k, v [batch,heads,seq,dim], got " +
                        format_shape(qs) + ", " + format_shape(ks) + ", " + format_shape(vs));
  }
  if (qs[0] != ks[0] || qs[0] != vs[0] || ks[1] != vs[1] || ks[2] != vs[2] || qs[3] != ks[3] ||
      ks[1] <= 0 || qs[1] % ks[1] != 0) {
    return inputs_error("q " + format_shape(qs) + ", k " + format_shape(ks) + ", v " +
                        format_shape(vs) +
                        " disagree (batch equal, k/v heads and seq equal and dividing q heads, "
                        "q/k head dim equal)");
  }
  if (forward) return Inferred{{TensorMeta{{qs[0], qs[1], qs[2], vs[3]}, q.dtype}}, false};
  return Inferred{{q, k, v}, false};
}

// ---- factories ---------------------------------------------------------------------------------

Result<Inferred> infer_factory(const Node& node) {
  if (node.op == K::kArange) {
    DTPLAN_TRY(double end, node.attrs.get_number("end"));
    double start = 0, step = 1;
    if (node.attrs.contains("start")) {
      DTPLAN_TRY(start, node.attrs.get_number("start"));
    }
    if (node.attrs.contains("step")) {
      DTPLAN_TRY(step, node.attrs.get_number("step"));
    }
    if (step == 0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
      return Error::bad_input(attr_field("step") + ": arange needs a finite, non-zero step");
    }
    double count = std::ceil((end - start) / step);
    if (count > 1e18) return Error::bad_input(attr_field("end") + ": arange is too long");
    auto n = static_cast<std::int64_t>(std::max(0.0, count));
    bool integral = true;
    for (const char* name : {"start", "end", "step"}) {
      const AttrValue* v = node.attrs.find(name);
      if (v != nullptr && !std::holds_alternative<std::int64_t>(*v)) integral = false;
    }
    DType d = integral ? DType::kI64 : DType::kF32;
    if (node.attrs.contains("dtype")) {
      DTPLAN_TRY(d, node.attrs.get_dtype("dtype"));
    }
    return single_output({n}, d);
  }
  DTPLAN_TRY(std::vector<std::int64_t> size, node.attrs.get_ints("size"));
  for (std::int64_t s : size) {
    if (s < 0) {
      return Error::bad_input(attr_field("size") + ": negative size in " + format_shape(size));
    }
  }
  DType d = DType::kF32;
  if (node.op == K::kFull) {
    if (const AttrValue* fill = node.attrs.find("fill_value")) {
      d = default_for_category(scalar_category(*fill));
    }
  }
  if (node.attrs.contains("dtype")) {
    DTPLAN_TRY(d, node.attrs.get_dtype("dtype"));
  }
  return single_output(std::move(size), d);
}

}  // namespace

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) {
      return Error::bad_input("shapes " + format_shape(a) + " and " + format_shape(b) +
                              " do not broadcast");
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

DType promote_dtypes(std::span<const TensorMeta* const> tensors,
                     std::span<const AttrValue* const> scalars) {
  std::optional<DType> dimensioned, zero_dim;
  for (const TensorMeta* t : tensors) {
    auto& slot = t->shape.empty() ? zero_dim : dimensioned;
    slot = slot ? promote_pair(*slot, t->dtype) : t->dtype;
  }
  std::optional<DType> result = dimensioned;
  if (!result) {
    result = zero_dim;
  } else if (zero_dim && category(*zero_dim) > category(*result)) {
    result = zero_dim;
  }
  int scalar_cat = -1;
  for (const AttrValue* s : scalars) scalar_cat = std::max(scalar_cat, scalar_category(*s));
  if (!result) return default_for_category(std::max(scalar_cat, 0));
  if (scalar_cat > category(*result)) return default_for_category(scalar_cat);
  return *result;
}

Result<std::int64_t> normalize_dim(std::int64_t dim, std::size_t rank, std::string_view field) {
  const auto r = static_cast<std::int64_t>(std::max<std::size_t>(rank, 1));
  if (dim < -r || dim >= r) {
    return Error::bad_input(std::string(field) + ": dimension " + std::to_string(dim) +
                            " is out of range for a " + std::to_string(rank) + "-d tensor");
  }
  return dim < 0 ? dim + r : dim;
}

Result<Inferred> infer_outputs(const Node& node, std::span<const TensorMeta* const> in) {
  switch (op_family(node.op)) {
    case OpFamily::kLeaf:
    case OpFamily::kOutput:
    case OpFamily::kOther:
      return Inferred{{}, false};
    case OpFamily::kFactory:
      return infer_factory(node);
    case OpFamily::kMatmul:
      return infer_matmul(node, in);
    case OpFamily::kPointwise:
      return infer_pointwise(node, in);
    case OpFamily::kReduction:
      return infer_reduction(node, *in[0]);
    case OpFamily::kSoftmax:
      return infer_softmax(node, in);
    case OpFamily::kNorm:
      return infer_norm(node, in);
    case OpFamily::kEmbedding:
      return infer_embedding(node, in);
    case OpFamily::kAttention:
      return infer_sdpa(node, in);
    case OpFamily::kView:
    case OpFamily::kTuple:
      return infer_view_like(node, in);
  }
  return Inferred{{}, false};
}

}  // namespace dtplan::graph
