#include "cost/compute_work.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/checked.h"
#include "core/strings.h"

namespace dtplan::cost {

namespace {

constexpr std::int64_t kStatBytes = 4;  // fp32 softmax / norm statistics

core::Status dims_ok(std::string_view op, std::initializer_list<std::int64_t> dims) {
  for (std::int64_t d : dims) {
    if (d < 0) {
      return core::Error::bad_input(std::string(op) + ": dimension " + std::to_string(d) +
                                    " is negative");
    }
  }
  return {};
}

// Sum of element counts times the element size, checked.
core::Result<std::int64_t> bytes_of(std::initializer_list<std::int64_t> numels, int element,
                                    std::string_view what) {
  std::int64_t total = 0;
  for (std::int64_t n : numels) {
    DTPLAN_TRY(std::int64_t b, core::checked_mul(n, element, what));
    DTPLAN_TRY(total, core::checked_add(total, b, what));
  }
  return total;
}

core::Result<std::int64_t> product(std::initializer_list<std::int64_t> v, std::string_view what) {
  std::vector<std::int64_t> values(v);
  return core::checked_product(values, what);
}

}  // namespace

core::Result<Work> matmul_work(std::int64_t m, std::int64_t n, std::int64_t k, core::DType dtype,
                               Pass pass) {
  return bmm_work(1, m, n, k, dtype, pass);
}

core::Result<Work> bmm_work(std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k,
                            core::DType dtype, Pass pass) {
  const char* what = "bmm";
  DTPLAN_CHECK(dims_ok(what, {b, m, n, k}));
  DTPLAN_TRY(std::int64_t mk, product({b, m, k}, what));
  DTPLAN_TRY(std::int64_t kn, product({b, k, n}, what));
  DTPLAN_TRY(std::int64_t mn, product({b, m, n}, what));
  DTPLAN_TRY(std::int64_t once, bytes_of({mk, kn, mn}, core::dtype_bytes(dtype), what));
  double flops = 2.0 * static_cast<double>(b) * static_cast<double>(m) * static_cast<double>(n) *
                 static_cast<double>(k);
  if (pass == Pass::kForward) return Work{flops, once};
  DTPLAN_TRY(std::int64_t twice, core::checked_mul(once, 2, what));
  return Work{2.0 * flops, twice};
}

core::Result<Work> einsum_work(std::string_view equation,
                               std::span<const std::vector<std::int64_t>> shapes, core::DType dtype,
                               Pass pass) {
  std::string eq(equation);
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  auto bad = [&](const std::string& why) {
    return core::Error::bad_input("einsum '" + std::string(equation) + "': " + why);
  };
  std::size_t arrow = eq.find("->");
  if (arrow == std::string::npos) return bad("needs an explicit '->' output");
  if (eq.find("...") != std::string::npos) {
    return core::Error::unsupported("einsum '" + std::string(equation) +
                                    "': ellipsis is not supported");
  }
  std::vector<std::string_view> operands = core::split(std::string_view(eq).substr(0, arrow), ',');
  std::string_view output = std::string_view(eq).substr(arrow + 2);
  if (operands.empty() || operands.size() > 2) return bad("needs one or two operands");
  if (operands.size() != shapes.size()) {
    return bad(std::to_string(operands.size()) + " operands but " + std::to_string(shapes.size()) +
               " shapes");
  }
  std::array<std::int64_t, 128> size{};
  size.fill(-1);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].size() != shapes[i].size()) {
      return bad("operand " + std::to_string(i) + " '" + std::string(operands[i]) + "' has " +
                 std::to_string(operands[i].size()) + " letters but shape " +
                 core::format_int_list(shapes[i]));
    }
    for (std::size_t d = 0; d < operands[i].size(); ++d) {
      unsigned char c = static_cast<unsigned char>(operands[i][d]);
      if (!std::isalpha(c)) return bad(std::string("'") + operands[i][d] + "' is not a letter");
      if (shapes[i][d] < 0) return bad("negative size in " + core::format_int_list(shapes[i]));
      if (size[c] >= 0 && size[c] != shapes[i][d]) {
        return bad(std::string("letter '") + operands[i][d] + "' has sizes " +
                   std::to_string(size[c]) + " and " + std::to_string(shapes[i][d]));
      }
      size[c] = shapes[i][d];
    }
  }
  const char* what = "einsum";
  std::int64_t out_numel = 1;
  for (char ch : output) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (!std::isalpha(c) || size[c] < 0) {
      return bad(std::string("output letter '") + ch + "' is not in any operand");
    }
    DTPLAN_TRY(out_numel, core::checked_mul(out_numel, size[c], what));
  }
  double all_letters = 1;
  bool dropped = false;
  for (int c = 0; c < 128; ++c) {
    if (size[static_cast<std::size_t>(c)] < 0) continue;
    all_letters *= static_cast<double>(size[static_cast<std::size_t>(c)]);
    if (output.find(static_cast<char>(c)) == std::string_view::npos) dropped = true;
  }
  std::int64_t in_numel = 0;
  for (const auto& s : shapes) {
    DTPLAN_TRY(std::int64_t n, core::checked_product(s, what));
    DTPLAN_TRY(in_numel, core::checked_add(in_numel, n, what));
  }
  DTPLAN_TRY(std::int64_t once, bytes_of({in_numel, out_numel}, core::dtype_bytes(dtype), what));
  double flops = operands.size() == 2 ? 2.0 * all_letters : (dropped ? all_letters : 0.0);
  if (pass == Pass::kForward) return Work{flops, once};
  DTPLAN_TRY(std::int64_t twice, core::checked_mul(once, 2, what));
  return Work{operands.size() == 2 ? 2.0 * flops : 0.0, twice};
}

core::Result<Work> sdpa_work(const AttentionShape& s, core::DType dtype, AttentionMask mask,
                             Pass pass) {
  const char* what = "scaled_dot_product_attention";
  DTPLAN_CHECK(dims_ok(what, {s.batch, s.heads, s.q_len, s.kv_len, s.head_dim, s.value_dim}));
  double sq = static_cast<double>(s.q_len);
  double sk = static_cast<double>(s.kv_len);
  double pairs = sq * sk;
  if (mask == AttentionMask::kCausal) {  // query i sees keys 0..i (top-left aligned tril)
    pairs = sq <= sk ? sq * (sq + 1) / 2 : sk * (sk + 1) / 2 + (sq - sk) * sk;
  }
  double bh = static_cast<double>(s.batch) * static_cast<double>(s.heads);
  double d = static_cast<double>(s.head_dim);
  double dv = static_cast<double>(s.value_dim);
  DTPLAN_TRY(std::int64_t q, product({s.batch, s.heads, s.q_len, s.head_dim}, what));
  DTPLAN_TRY(std::int64_t k, product({s.batch, s.heads, s.kv_len, s.head_dim}, what));
  DTPLAN_TRY(std::int64_t v, product({s.batch, s.heads, s.kv_len, s.value_dim}, what));
  DTPLAN_TRY(std::int64_t o, product({s.batch, s.heads, s.q_len, s.value_dim}, what));
  DTPLAN_TRY(std::int64_t rows, product({s.batch, s.heads, s.q_len}, what));
  DTPLAN_TRY(std::int64_t lse, core::checked_mul(rows, kStatBytes, what));
  int e = core::dtype_bytes(dtype);
  if (pass == Pass::kForward) {
    DTPLAN_TRY(std::int64_t b, bytes_of({q, k, v, o}, e, what));
    DTPLAN_TRY(b, core::checked_add(b, lse, what));
    return Work{2.0 * bh * pairs * (d + dv), b};
  }
  // reads q, k, v, out, dout, lse; writes dq, dk, dv
  DTPLAN_TRY(std::int64_t b, bytes_of({q, k, v, o, o, q, k, v}, e, what));
  DTPLAN_TRY(b, core::checked_add(b, lse, what));
  return Work{2.0 * bh * pairs * (3 * d + 2 * dv), b};
}

core::Result<Work> pointwise_work(std::span<const std::int64_t> input_numels,
                                  std::int64_t output_numel, core::DType dtype) {
  const char* what = "pointwise";
  std::int64_t total = output_numel;
  DTPLAN_CHECK(dims_ok(what, {output_numel}));
  for (std::int64_t n : input_numels) {
    DTPLAN_CHECK(dims_ok(what, {n}));
    DTPLAN_TRY(total, core::checked_add(total, n, what));
  }
  DTPLAN_TRY(std::int64_t b, core::checked_mul(total, core::dtype_bytes(dtype), what));
  return Work{0, b};
}

core::Result<Work> reduction_work(std::int64_t input_numel, std::int64_t output_numel,
                                  core::DType dtype) {
  std::int64_t in[] = {input_numel};
  return pointwise_work(in, output_numel, dtype);
}

core::Result<Work> norm_work(std::int64_t rows, std::int64_t cols, core::DType dtype, NormKind kind,
                             Pass pass) {
  const char* what = "norm";
  DTPLAN_CHECK(dims_ok(what, {rows, cols}));
  DTPLAN_TRY(std::int64_t x, core::checked_mul(rows, cols, what));
  std::int64_t params = kind == NormKind::kLayerNorm ? 2 * cols : cols;  // weight (+ bias)
  std::int64_t stats_per_row = kind == NormKind::kLayerNorm ? 2 : 1;     // mean + rstd, or rstd
  DTPLAN_TRY(std::int64_t stats, product({rows, stats_per_row, kStatBytes}, what));
  int e = core::dtype_bytes(dtype);
  DTPLAN_TRY(std::int64_t b, pass == Pass::kForward ? bytes_of({x, cols, x}, e, what)
                                                    : bytes_of({x, x, cols, x, params}, e, what));
  if (pass == Pass::kForward && kind == NormKind::kLayerNorm) {
    DTPLAN_TRY(b, core::checked_add(b, static_cast<std::int64_t>(cols) * e, what));
  }
  DTPLAN_TRY(b, core::checked_add(b, stats, what));
  return Work{0, b};
}

core::Result<Work> copy_work(std::int64_t numel, core::DType dtype) {
  std::int64_t in[] = {numel};
  return pointwise_work(in, numel, dtype);
}

std::string_view local_op_name(LocalOp op) {
  static constexpr std::array<std::string_view, 5> kNames = {
      "chunk_copy", "pad", "unpad", "reorder_after_gather", "partial_scale"};
  return kNames[static_cast<std::size_t>(op)];
}

core::Result<Work> local_op_work(LocalOp op, std::int64_t input_bytes, std::int64_t output_bytes) {
  std::string what(local_op_name(op));
  if (input_bytes < 0 || output_bytes < 0) {
    return core::Error::bad_input(what + ": bytes must be >= 0, got " +
                                  std::to_string(input_bytes) + " and " +
                                  std::to_string(output_bytes));
  }
  DTPLAN_TRY(std::int64_t b, core::checked_add(input_bytes, output_bytes, what));
  return Work{0, b};
}

core::Result<ComputeCost> local_op_cost(LocalOp op, std::int64_t input_bytes,
                                        std::int64_t output_bytes, const HardwareProfile& profile) {
  DTPLAN_TRY(Work w, local_op_work(op, input_bytes, output_bytes));
  return roofline(w, core::DType::kU8, profile);  // no FLOPs: the dtype selects nothing
}

}  // namespace dtplan::cost
