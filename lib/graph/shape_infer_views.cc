#include "graph/shape_infer_views.h"

#include <algorithm>
#include <limits>

#include "core/checked.h"

namespace dtplan::graph {
namespace {

using core::DType;
using core::Error;
using core::Result;
using K = OpKind;

Result<Shape> resolve_view_size(const Shape& size, std::int64_t n, std::string_view field);

Result<Inferred> infer_view(const Node& node, const TensorMeta& in) {
  if (!node.attrs.contains("size") && node.attrs.contains("dtype")) {
    // view.dtype: reinterpret the last dimension's bytes.
    DTPLAN_TRY(DType to, node.attrs.get_dtype("dtype"));
    const int from_bytes = core::dtype_bytes(in.dtype), to_bytes = core::dtype_bytes(to);
    Shape out = in.shape;
    if (from_bytes == to_bytes) return single_output(std::move(out), to);
    if (out.empty() || (out.back() * from_bytes) % to_bytes != 0) {
      return Error::bad_input(attr_field("dtype") + ": cannot view " + format_meta(in) + " as " +
                              std::string(core::dtype_name(to)));
    }
    out.back() = out.back() * from_bytes / to_bytes;
    return single_output(std::move(out), to);
  }
  DTPLAN_TRY(std::vector<std::int64_t> size, node.attrs.get_ints("size"));
  DTPLAN_TRY(std::int64_t n, numel(in, "view input"));
  DTPLAN_TRY(Shape out, resolve_view_size(size, n, attr_field("size")));
  return single_output(std::move(out), in.dtype);
}

Result<Inferred> infer_permute(const Node& node, const TensorMeta& in) {
  DTPLAN_TRY(std::vector<std::int64_t> dims, node.attrs.get_ints("dims"));
  const std::size_t rank = in.shape.size();
  if (dims.size() != rank) {
    return Error::bad_input(attr_field("dims") + ": " + format_shape(dims) + " is not a " +
                            "permutation of " + std::to_string(rank) + " dimensions");
  }
  std::vector<bool> seen(rank, false);
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    DTPLAN_TRY(std::int64_t d, normalize_dim(dims[i], rank, attr_field("dims")));
    if (seen[d]) {
      return Error::bad_input(attr_field("dims") + ": " + format_shape(dims) +
                              " repeats dimension " + std::to_string(d));
    }
    seen[d] = true;
    out[i] = in.shape[d];
  }
  return single_output(std::move(out), in.dtype);
}

Result<Inferred> infer_expand(const Node& node, const TensorMeta& in) {
  DTPLAN_TRY(std::vector<std::int64_t> size, node.attrs.get_ints("size"));
  const std::size_t rank = in.shape.size();
  if (size.size() < rank) {
    return Error::bad_input(attr_field("size") + ": " + format_shape(size) + " has fewer dims " +
                            "than the input " + format_shape(in.shape));
  }
  const std::size_t lead = size.size() - rank;
  Shape out(size.size());
  for (std::size_t i = 0; i < size.size(); ++i) {
    const std::int64_t want = size[i];
    if (i < lead) {
      if (want < 0) {
        return Error::bad_input(attr_field("size") + ": new leading dimension " +
                                std::to_string(i) + " cannot be " + std::to_string(want));
      }
      out[i] = want;
      continue;
    }
    const std::int64_t have = in.shape[i - lead];
    if (want == -1 || want == have) {
      out[i] = have;
    } else if (have == 1 && want >= 0) {
      out[i] = want;
    } else {
      return Error::bad_input(attr_field("size") + ": cannot expand " + format_shape(in.shape) +
                              " to " + format_shape(size));
    }
  }
  return single_output(std::move(out), in.dtype);
}

Result<Inferred> infer_squeeze(const Node& node, const TensorMeta& in) {
  const std::size_t rank = in.shape.size();
  std::vector<bool> drop(rank, false);
  if (node.attrs.contains("dim")) {
    DTPLAN_TRY(std::vector<std::int64_t> dims, node.attrs.get_int_list("dim"));
    for (std::int64_t d : dims) {
      DTPLAN_TRY(std::int64_t nd, normalize_dim(d, rank, attr_field("dim")));
      if (rank > 0 && in.shape[nd] == 1) drop[nd] = true;  // other sizes: a no-op, as in torch
    }
  } else {
    for (std::size_t i = 0; i < rank; ++i) drop[i] = in.shape[i] == 1;
  }
  Shape out;
  for (std::size_t i = 0; i < rank; ++i) {
    if (!drop[i]) out.push_back(in.shape[i]);
  }
  return single_output(std::move(out), in.dtype);
}

Result<Inferred> infer_slice(const Node& node, const TensorMeta& in) {
  const std::size_t rank = in.shape.size();
  if (rank == 0) return inputs_error("slice needs at least one dimension");
  DTPLAN_TRY(std::int64_t dim, node.attrs.get_int_or("dim", 0));
  DTPLAN_TRY(dim, normalize_dim(dim, rank, attr_field("dim")));
  DTPLAN_TRY(std::int64_t start, node.attrs.get_int_or("start", 0));
  DTPLAN_TRY(std::int64_t end,
             node.attrs.get_int_or("end", std::numeric_limits<std::int64_t>::max()));
  DTPLAN_TRY(std::int64_t step, node.attrs.get_int_or("step", 1));
  if (step <= 0) {
    return Error::bad_input(attr_field("step") + ": must be positive, got " + std::to_string(step));
  }
  const std::int64_t n = in.shape[dim];
  // Python slice clamping, without overflow for INT64_MIN/MAX bounds.
  auto clamp = [n](std::int64_t v) {
    if (v < 0) v = v < -n ? 0 : v + n;
    return std::min(v, n);
  };
  start = clamp(start);
  end = clamp(end);
  Shape out = in.shape;
  out[dim] = end > start ? 1 + (end - start - 1) / step : 0;
  return single_output(std::move(out), in.dtype);
}

Result<Inferred> infer_split(const Node& node, const TensorMeta& in) {
  const std::size_t rank = in.shape.size();
  if (rank == 0) return inputs_error("split needs at least one dimension");
  DTPLAN_TRY(std::int64_t dim, node.attrs.get_int_or("dim", 0));
  DTPLAN_TRY(dim, normalize_dim(dim, rank, attr_field("dim")));
  const std::int64_t n = in.shape[dim];
  std::vector<std::int64_t> sizes;
  if (node.op == K::kSplit) {
    DTPLAN_TRY(std::int64_t chunk, node.attrs.get_int("split_size"));
    if (chunk <= 0) {
      return Error::bad_input(attr_field("split_size") + ": must be positive, got " +
                              std::to_string(chunk));
    }
    if (n / chunk > 100000) {
      return Error::bad_input(attr_field("split_size") + ": " + std::to_string(chunk) + " splits " +
                              std::to_string(n) + " into too many pieces");
    }
    for (std::int64_t at = 0; at < n || sizes.empty(); at += chunk) {
      sizes.push_back(std::min(chunk, n - at));
    }
  } else {
    DTPLAN_TRY(sizes, node.attrs.get_ints("split_sizes"));
    std::int64_t total = 0;
    for (std::int64_t s : sizes) {
      if (s < 0) return Error::bad_input(attr_field("split_sizes") + ": negative size");
      DTPLAN_TRY(total, core::checked_add(total, s, attr_field("split_sizes")));
    }
    if (total != n) {
      return Error::bad_input(attr_field("split_sizes") + ": " + format_shape(sizes) + " sums to " +
                              std::to_string(total) + ", dimension " + std::to_string(dim) +
                              " has " + std::to_string(n));
    }
  }
  Inferred out;
  for (std::int64_t s : sizes) {
    Shape shape = in.shape;
    shape[dim] = s;
    out.outputs.push_back(TensorMeta{std::move(shape), in.dtype});
  }
  return out;
}

Result<Inferred> infer_cat(const Node& node, std::span<const TensorMeta* const> in) {
  // Legacy rule: 1-d empty tensors are skipped.
  std::vector<const TensorMeta*> parts;
  for (const TensorMeta* m : in) {
    if (!(m->shape.size() == 1 && m->shape[0] == 0)) parts.push_back(m);
  }
  if (parts.empty()) return single_output({0}, promote_dtypes(in, {}));
  const Shape& first = parts[0]->shape;
  if (first.empty()) return inputs_error("cat needs tensors with at least one dimension");
  DTPLAN_TRY(std::int64_t dim, node.attrs.get_int_or("dim", 0));
  DTPLAN_TRY(dim, normalize_dim(dim, first.size(), attr_field("dim")));
  Shape out = first;
  out[dim] = 0;
  for (const TensorMeta* m : parts) {
    bool fits = m->shape.size() == first.size();
    for (std::size_t i = 0; fits && i < first.size(); ++i) {
      fits = static_cast<std::int64_t>(i) == dim || m->shape[i] == first[i];
    }
    if (!fits) {
      return inputs_error("cat along dim " + std::to_string(dim) + ": " + format_shape(first) +
                          " and " + format_shape(m->shape) + " differ elsewhere");
    }
    DTPLAN_TRY(out[dim], core::checked_add(out[dim], m->shape[dim], "cat size"));
  }
  return single_output(std::move(out), promote_dtypes(in, {}));
}

// The shape `size` requests from an input with `numel` elements, resolving one -1.
// Example: resolve_view_size({16, -1}, 64, "field 'attrs'.'size'") == {16, 4}.
Result<Shape> resolve_view_size(const Shape& size, std::int64_t n, std::string_view field) {
  Shape out = size;
  std::optional<std::size_t> infer_at;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer_at) {
        return Error::bad_input(std::string(field) + ": only one dimension can be -1 in " +
                                format_shape(size));
      }
      infer_at = i;
    } else if (size[i] < 0) {
      return Error::bad_input(std::string(field) + ": invalid size " + std::to_string(size[i]));
    } else {
      DTPLAN_TRY(known, core::checked_mul(known, size[i], field));
    }
  }
  if (infer_at) {
    if (known == 0 || n % known != 0) {
      return Error::bad_input(std::string(field) + ": " + format_shape(size) + " cannot view " +
                              std::to_string(n) + " elements");
    }
    out[*infer_at] = n / known;
  } else if (known != n) {
    return Error::bad_input(std::string(field) + ": " + format_shape(size) + " has " +
                            std::to_string(known) + " elements but the input has " +
                            std::to_string(n));
  }
  return out;
}

}  // namespace

Result<Inferred> infer_view_like(const Node& node, std::span<const TensorMeta* const> in) {
  const TensorMeta& x = *in[0];
  const std::size_t rank = x.shape.size();
  switch (node.op) {
    case K::kAlias:
    case K::kConj:
      return single_output(x.shape, x.dtype);
    case K::kView:
    case K::kReshape:
    case K::kUnsafeView:
      return infer_view(node, x);
    case K::kPermute:
      return infer_permute(node, x);
    case K::kTranspose: {
      DTPLAN_TRY(std::int64_t d0, node.attrs.get_int("dim0"));
      DTPLAN_TRY(std::int64_t d1, node.attrs.get_int("dim1"));
      DTPLAN_TRY(d0, normalize_dim(d0, rank, attr_field("dim0")));
      DTPLAN_TRY(d1, normalize_dim(d1, rank, attr_field("dim1")));
      Shape out = x.shape;
      if (rank > 0) std::swap(out[d0], out[d1]);
      return single_output(std::move(out), x.dtype);
    }
    case K::kT: {
      if (rank > 2)
        return inputs_error("t needs a tensor of at most 2 dims, got " + format_meta(x));
      Shape out(x.shape.rbegin(), x.shape.rend());
      return single_output(std::move(out), x.dtype);
    }
    case K::kExpand:
      return infer_expand(node, x);
    case K::kSqueeze:
      return infer_squeeze(node, x);
    case K::kUnsqueeze: {
      DTPLAN_TRY(std::int64_t d, node.attrs.get_int("dim"));
      DTPLAN_TRY(d, normalize_dim(d, rank + 1, attr_field("dim")));
      Shape out = x.shape;
      out.insert(out.begin() + d, 1);
      return single_output(std::move(out), x.dtype);
    }
    case K::kSlice:
      return infer_slice(node, x);
    case K::kSelect: {
      if (rank == 0) return inputs_error("select needs at least one dimension");
      DTPLAN_TRY(std::int64_t d, node.attrs.get_int("dim"));
      DTPLAN_TRY(d, normalize_dim(d, rank, attr_field("dim")));
      DTPLAN_TRY(std::int64_t index, node.attrs.get_int("index"));
      if (index < -x.shape[d] || index >= x.shape[d]) {
        return Error::bad_input(attr_field("index") + ": " + std::to_string(index) +
                                " is out of range for size " + std::to_string(x.shape[d]));
      }
      Shape out = x.shape;
      out.erase(out.begin() + d);
      return single_output(std::move(out), x.dtype);
    }
    case K::kViewAsComplex: {
      if (x.dtype != DType::kF32 || rank == 0 || x.shape.back() != 2) {
        return inputs_error("view_as_complex needs f32[...,2], got " + format_meta(x));
      }
      return single_output(Shape(x.shape.begin(), x.shape.end() - 1), DType::kC64);
    }
    case K::kViewAsReal: {
      if (x.dtype != DType::kC64) {
        return inputs_error("view_as_real needs a c64 tensor, got " + format_meta(x));
      }
      Shape out = x.shape;
      out.push_back(2);
      return single_output(std::move(out), DType::kF32);
    }
    case K::kSplit:
    case K::kSplitWithSizes:
      return infer_split(node, x);
    case K::kCat:
      return infer_cat(node, in);
    default:
      return Inferred{{}, false};  // getitem: checked against the producer's tuple
  }
}

}  // namespace dtplan::graph
