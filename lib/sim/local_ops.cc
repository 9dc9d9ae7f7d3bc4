#include "sim/local_ops.h"

#include <cstring>
#include <string>

#include "core/checked.h"
#include "placement/chunk.h"

namespace dtplan::sim {

namespace {

// t viewed as [outer, size, inner] around `dim`; inner in bytes.
struct DimView {
  std::int64_t outer = 1;
  std::int64_t size = 0;
  std::int64_t inner_bytes = 0;
};

core::Error bad(std::string_view op, const Tensor& t, const std::string& message) {
  return core::Error::bad_input(std::string(op) + ": " + message + " for " + describe(t));
}

core::Result<DimView> dim_view(const Tensor& t, std::int64_t dim, std::string_view op) {
  if (dim < 0 || dim >= t.rank()) {
    return bad(op, t, "dim " + std::to_string(dim) + " is out of range");
  }
  const std::span<const std::int64_t> shape(t.shape());
  const auto d = static_cast<std::size_t>(dim);
  DimView v;
  DTPLAN_TRY(v.outer, core::checked_product(shape.first(d), "outer numel"));
  DTPLAN_TRY(std::int64_t inner, core::checked_product(shape.subspan(d + 1), "inner numel"));
  DTPLAN_TRY(v.inner_bytes, core::checked_mul(inner, t.element_bytes(), "inner bytes"));
  v.size = shape[d];
  return v;
}

// A result like `like` (data or shape-only) with `shape`.
core::Result<Tensor> make_like(const Tensor& like, Shape shape) {
  return like.has_data() ? Tensor::uninitialized(like.dtype(), std::move(shape))
                         : Tensor::shape_only(like.dtype(), std::move(shape));
}

Shape with_dim(const Shape& shape, std::int64_t dim, std::int64_t size) {
  Shape out = shape;
  out[static_cast<std::size_t>(dim)] = size;
  return out;
}

void copy_run(std::byte* dst, const std::byte* src, std::int64_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, static_cast<std::size_t>(bytes));
}

}  // namespace

core::Result<Tensor> narrow(const Tensor& t, std::int64_t dim, std::int64_t start,
                            std::int64_t length) {
  DTPLAN_TRY(DimView v, dim_view(t, dim, "narrow"));
  if (start < 0 || length < 0 || start > v.size || length > v.size - start) {
    return bad("narrow", t,
               "[" + std::to_string(start) + ", " + std::to_string(start) + " + " +
                   std::to_string(length) + ") is not inside dim " + std::to_string(dim));
  }
  DTPLAN_TRY(Tensor out, make_like(t, with_dim(t.shape(), dim, length)));
  if (!t.has_data()) return out;
  for (std::int64_t o = 0; o < v.outer; ++o) {
    copy_run(out.data() + o * length * v.inner_bytes,
             t.data() + (o * v.size + start) * v.inner_bytes, length * v.inner_bytes);
  }
  return out;
}

core::Result<Tensor> pad_to(const Tensor& t, std::int64_t dim, std::int64_t size) {
  DTPLAN_TRY(DimView v, dim_view(t, dim, "pad"));
  if (size < v.size) {
    return bad("pad", t,
               "cannot pad dim " + std::to_string(dim) + " down to " + std::to_string(size));
  }
  DTPLAN_TRY(Tensor out, make_like(t, with_dim(t.shape(), dim, size)));
  if (!t.has_data()) return out;
  const std::int64_t keep = v.size * v.inner_bytes;
  const std::int64_t fill = (size - v.size) * v.inner_bytes;
  for (std::int64_t o = 0; o < v.outer; ++o) {
    std::byte* dst = out.data() + o * size * v.inner_bytes;
    copy_run(dst, t.data() + o * keep, keep);
    if (fill > 0) std::memset(dst + keep, 0, static_cast<std::size_t>(fill));
  }
  return out;
}

core::Result<std::vector<Tensor>> chunk(const Tensor& t, std::int64_t dim, std::int64_t n) {
  DTPLAN_TRY(DimView v, dim_view(t, dim, "chunk"));
  if (n < 1) return bad("chunk", t, "cannot chunk into " + std::to_string(n) + " pieces");
  std::vector<Tensor> out;
  out.reserve(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) {
    placement::IndexRange piece = placement::chunk_piece(v.size, n, r);
    DTPLAN_TRY(Tensor p, narrow(t, dim, piece.begin, piece.length()));
    out.push_back(std::move(p));
  }
  return out;
}

core::Result<Tensor> cat(std::span<const Tensor> pieces, std::int64_t dim) {
  const Tensor& first = pieces.front();
  DTPLAN_TRY(DimView v, dim_view(first, dim, "cat"));
  std::int64_t total = 0;
  for (const Tensor& p : pieces) {
    if (p.dtype() != first.dtype() || p.rank() != first.rank() ||
        with_dim(p.shape(), dim, 0) != with_dim(first.shape(), dim, 0) ||
        p.has_data() != first.has_data()) {
      return bad("cat", p,
                 "piece does not match " + describe(first) + " along dim " + std::to_string(dim));
    }
    total += p.shape()[static_cast<std::size_t>(dim)];
  }
  DTPLAN_TRY(Tensor out, make_like(first, with_dim(first.shape(), dim, total)));
  if (!first.has_data()) return out;
  std::byte* dst = out.data();
  for (std::int64_t o = 0; o < v.outer; ++o) {
    for (const Tensor& p : pieces) {
      const std::int64_t run = p.shape()[static_cast<std::size_t>(dim)] * v.inner_bytes;
      copy_run(dst, p.data() + o * run, run);
      dst += run;
    }
  }
  return out;
}

core::Result<Tensor> index_select(const Tensor& t, std::int64_t dim,
                                  std::span<const std::int64_t> indices) {
  DTPLAN_TRY(DimView v, dim_view(t, dim, "index_select"));
  for (std::int64_t i : indices) {
    if (i < 0 || i >= v.size) {
      return bad(
          "index_select", t,
          "index " + std::to_string(i) + " is out of range along dim " + std::to_string(dim));
    }
  }
  const auto count = static_cast<std::int64_t>(indices.size());
  DTPLAN_TRY(Tensor out, make_like(t, with_dim(t.shape(), dim, count)));
  if (!t.has_data()) return out;
  std::byte* dst = out.data();
  for (std::int64_t o = 0; o < v.outer; ++o) {
    for (std::int64_t i : indices) {
      copy_run(dst, t.data() + (o * v.size + i) * v.inner_bytes, v.inner_bytes);
      dst += v.inner_bytes;
    }
  }
  return out;
}

core::Result<Tensor> split_rank_major(const Tensor& t, std::int64_t n, std::int64_t dim) {
  DTPLAN_TRY(DimView v, dim_view(t, dim, "split_rank_major"));
  if (n < 1 || v.size % n != 0) {
    return bad("split_rank_major", t,
               "dim " + std::to_string(dim) + " does not split into " + std::to_string(n) +
                   " equal pieces");
  }
  const std::int64_t piece = v.size / n;
  Shape shape = with_dim(t.shape(), dim, piece);
  shape[0] *= n;  // dim 0 of a piece times n (for dim 0: piece * n == size)
  DTPLAN_TRY(Tensor out, make_like(t, std::move(shape)));
  if (!t.has_data()) return out;
  const std::int64_t run = piece * v.inner_bytes;
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t o = 0; o < v.outer; ++o) {
      copy_run(out.data() + (j * v.outer + o) * run, t.data() + (o * n + j) * run, run);
    }
  }
  return out;
}

core::Result<Tensor> merge_rank_major(const Tensor& t, std::int64_t n, std::int64_t dim) {
  if (t.rank() < 1 || n < 1 || t.shape()[0] % n != 0) {
    return bad("merge_rank_major", t, "dim 0 does not hold " + std::to_string(n) + " blocks");
  }
  Shape block = t.shape();
  block[0] /= n;
  DTPLAN_TRY(Tensor block_view, Tensor::shape_only(t.dtype(), block));
  DTPLAN_TRY(DimView v, dim_view(block_view, dim, "merge_rank_major"));
  Shape shape = with_dim(block, dim, v.size * n);
  DTPLAN_TRY(Tensor out, make_like(t, std::move(shape)));
  if (!t.has_data()) return out;
  const std::int64_t run = v.size * v.inner_bytes;
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t o = 0; o < v.outer; ++o) {
      copy_run(out.data() + (o * n + j) * run, t.data() + (j * v.outer + o) * run, run);
    }
  }
  return out;
}

}  // namespace dtplan::sim
