#include "sim/verify_values.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/hash.h"
#include "sim/half_float.h"

namespace dtplan::sim {

namespace {

using placement::ReduceOp;

// `x` rounded to the dtype, as a double.
double round_to(core::DType dtype, double x) {
  switch (dtype) {
    case core::DType::kF32:
      return static_cast<float>(x);
    case core::DType::kBF16:
      return bf16_to_f32(f32_to_bf16(static_cast<float>(x)));
    case core::DType::kF16:
      return f16_to_f32(f32_to_f16(static_cast<float>(x)));
    default:
      return x;
  }
}

bool floating(core::DType dtype) {
  return dtype == core::DType::kF32 || dtype == core::DType::kF64 || dtype == core::DType::kBF16 ||
         dtype == core::DType::kF16;
}

}  // namespace

std::string_view value_kind_name(ValueKind kind) {
  return kind == ValueKind::kInteger ? "int" : "float";
}

core::Result<ValueKind> parse_value_kind(std::string_view text, std::string_view what) {
  if (text == "int") return ValueKind::kInteger;
  if (text == "float") return ValueKind::kFloat;
  return core::Error::bad_input(std::string(what) + ": unknown value kind '" + std::string(text) +
                                "'; expected int or float");
}

namespace {

// Significand bits p used for the dtype's integer-valued data (verify_values.h); 0 for dtypes a
// verification cannot fill (bool, i8, u8, f8, complex).
int value_bits(core::DType dtype) {
  switch (dtype) {
    case core::DType::kF32:
      return 24;
    case core::DType::kBF16:
      return 8;
    case core::DType::kF16:
      return 11;
    case core::DType::kF64:
      return 53;
    case core::DType::kI32:
      return 30;
    case core::DType::kI64:
      return 52;
    default:
      return 0;
  }
}

}  // namespace

core::Result<SourceValues> SourceValues::make(const redist::RedistPlan& plan, ValueKind kind,
                                              std::uint64_t seed) {
  const core::DType dtype = plan.src.dtype();
  const int bits = value_bits(dtype);
  if (bits == 0) {
    return core::Error::unsupported("verify: dtype " + std::string(core::dtype_name(dtype)) +
                                    " cannot be filled with checkable values (use f32, bf16, "
                                    "f16, f64, i32 or i64)");
  }
  SourceValues v;
  v.kind_ = floating(dtype) ? kind : ValueKind::kInteger;
  v.dtype_ = dtype;
  v.seed_ = seed;
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  // Products of mesh sizes never overflow: the mesh's rank count fits in int64.
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    const placement::Placement& p = plan.src.placement(m);
    if (!p.is_partial()) continue;
    v.contributors_ *= sizes[m];
    if (p.reduce_op() == ReduceOp::kAvg) v.avg_divisor_ *= sizes[m];
    if (p.reduce_op() == ReduceOp::kMax || p.reduce_op() == ReduceOp::kMin) {
      v.selecting_ = true;
      v.op_ = p.reduce_op();
    }
  }
  // Q: the partition steps divide by their group sizes; 2^62 caps the product.
  constexpr std::int64_t kCap = std::int64_t{1} << 62;
  std::int64_t q = 1;
  for (const redist::PlanStep& s : plan.steps) {
    const redist::Transform& t = s.transform;
    std::int64_t n = 1;
    for (std::int32_t m : t.mesh_dims) n *= sizes[static_cast<std::size_t>(m)];
    if (t.kind == redist::StepKind::kLocalPartition && t.dst.reduce_op() == ReduceOp::kSum) {
      q = (q > kCap / std::max<std::int64_t>(n, 1)) ? kCap : q * n;
    }
    const bool nccl_avg =
        (t.kind == redist::StepKind::kAllReduce || t.kind == redist::StepKind::kReduceScatter) &&
        t.src.is_partial() && t.src.reduce_op() == ReduceOp::kAvg;
    if (nccl_avg && !std::has_single_bit(static_cast<std::uint64_t>(n)) && floating(dtype)) {
      v.exact_ = false;  // premultiplication by a rounded 1/n
    }
  }
  const double limit = std::ldexp(1.0, bits);
  const double unit = static_cast<double>(q) * static_cast<double>(v.avg_divisor_);
  const double summands = v.selecting_ ? 1.0 : static_cast<double>(v.contributors_);
  const double bound = std::min(std::floor(limit / (unit * summands)), std::ldexp(1.0, 20));
  if (bound < 1 || unit > std::ldexp(1.0, 52)) {
    v.bound_ = 1;
    v.exact_ = false;
  } else {
    v.bound_ = static_cast<std::int64_t>(bound);
  }
  v.unit_ = unit > std::ldexp(1.0, 52) ? 1 : static_cast<std::int64_t>(unit);
  if (v.kind_ == ValueKind::kFloat) v.exact_ = false;
  if (v.selecting_ && q == 1) v.exact_ = true;  // selection never rounds
  v.roundoff_ = floating(dtype) ? std::ldexp(1.0, -bits) : 0.0;
  return v;
}

double SourceValues::raw(std::int64_t i, std::int64_t k) const {
  // One splitmix64 step of a counter unique to (seed, i, k).
  const std::uint64_t h =
      core::splitmix64(seed_ * 0xd1b54a32d192ed03ULL +
                       static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(contributors_) +
                       static_cast<std::uint64_t>(k));
  if (kind_ == ValueKind::kInteger) {
    const auto span = static_cast<std::uint64_t>(2 * bound_ + 1);
    const auto k_int = static_cast<std::int64_t>(h % span) - bound_;
    return static_cast<double>(k_int) * static_cast<double>(unit_);
  }
  const double x = static_cast<double>(h >> 11) * 0x1p-53 * 2.0 - 1.0;
  return round_to(dtype_, x);
}

double SourceValues::contribution(std::int64_t i, std::int64_t k) const { return raw(i, k); }

double SourceValues::global(std::int64_t i) const {
  if (selecting_) {
    double best = raw(i, 0);
    for (std::int64_t k = 1; k < contributors_; ++k) {
      const double c = raw(i, k);
      best = op_ == ReduceOp::kMax ? std::max(best, c) : std::min(best, c);
    }
    return best;
  }
  double sum = 0;
  for (std::int64_t k = 0; k < contributors_; ++k) sum += raw(i, k);
  return sum / static_cast<double>(avg_divisor_);
}

double SourceValues::scale(std::int64_t i) const {
  if (selecting_) return std::fabs(global(i));
  double sum = 0;
  for (std::int64_t k = 0; k < contributors_; ++k) sum += std::fabs(raw(i, k));
  return sum / static_cast<double>(avg_divisor_);
}

namespace {

// Higham's gamma_k for k = summands + 4 roundings of unit roundoff u, capped at 1.
double gamma_of(double summands, double roundoff) {
  const double k = (summands + 4.0) * roundoff;
  return k < 0.5 ? k / (1.0 - k) : 1.0;
}

}  // namespace

double SourceValues::tolerance(std::int64_t i) const {
  if (exact_) return 0;
  return gamma_of(selecting_ ? 1.0 : static_cast<double>(contributors_), roundoff_) * scale(i);
}

void SourceValues::globals(std::int64_t numel, std::vector<double>& global,
                           std::vector<double>& tolerance) const {
  global.assign(static_cast<std::size_t>(numel), 0.0);
  tolerance.assign(static_cast<std::size_t>(numel), 0.0);
  const double gamma =
      exact_ ? 0.0 : gamma_of(selecting_ ? 1.0 : static_cast<double>(contributors_), roundoff_);
  const auto divisor = static_cast<double>(avg_divisor_);
  for (std::int64_t i = 0; i < numel; ++i) {
    double value = raw(i, 0);
    double magnitude = std::fabs(value);
    for (std::int64_t k = 1; k < contributors_; ++k) {
      const double c = raw(i, k);
      if (!selecting_) {
        value += c;
        magnitude += std::fabs(c);
      } else {
        value = op_ == ReduceOp::kMax ? std::max(value, c) : std::min(value, c);
      }
    }
    if (selecting_) {
      magnitude = std::fabs(value);
    } else {
      value /= divisor;
      magnitude /= divisor;
    }
    global[static_cast<std::size_t>(i)] = value;
    tolerance[static_cast<std::size_t>(i)] = gamma * magnitude;
  }
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<std::size_t>(t.numel()));
  auto fill = [&](auto span, auto convert) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = convert(span[i]);
  };
  switch (t.dtype()) {
    case core::DType::kF32:
      fill(t.values<float>(), [](float x) { return static_cast<double>(x); });
      break;
    case core::DType::kF64:
      fill(t.values<double>(), [](double x) { return x; });
      break;
    case core::DType::kBF16:
      fill(t.values<std::uint16_t>(), [](std::uint16_t x) { return double{bf16_to_f32(x)}; });
      break;
    case core::DType::kF16:
      fill(t.values<std::uint16_t>(), [](std::uint16_t x) { return double{f16_to_f32(x)}; });
      break;
    case core::DType::kI32:
      fill(t.values<std::int32_t>(), [](std::int32_t x) { return static_cast<double>(x); });
      break;
    case core::DType::kI64:
      fill(t.values<std::int64_t>(), [](std::int64_t x) { return static_cast<double>(x); });
      break;
    default:
      break;
  }
  return out;
}

core::Result<Tensor> from_doubles(core::DType dtype, Shape shape, std::span<const double> values) {
  DTPLAN_TRY(Tensor t, Tensor::uninitialized(dtype, std::move(shape)));
  if (static_cast<std::int64_t>(values.size()) != t.numel()) {
    return core::Error::bad_input("from_doubles: " + std::to_string(values.size()) +
                                  " values for " + describe(t));
  }
  auto fill = [&](auto span, auto convert) {
    for (std::size_t i = 0; i < values.size(); ++i) span[i] = convert(values[i]);
  };
  switch (dtype) {
    case core::DType::kF32:
      fill(t.values<float>(), [](double x) { return static_cast<float>(x); });
      break;
    case core::DType::kF64:
      fill(t.values<double>(), [](double x) { return x; });
      break;
    case core::DType::kBF16:
      fill(t.values<std::uint16_t>(), [](double x) { return f32_to_bf16(static_cast<float>(x)); });
      break;
    case core::DType::kF16:
      fill(t.values<std::uint16_t>(), [](double x) { return f32_to_f16(static_cast<float>(x)); });
      break;
    case core::DType::kI32:
      fill(t.values<std::int32_t>(), [](double x) { return static_cast<std::int32_t>(x); });
      break;
    case core::DType::kI64:
      fill(t.values<std::int64_t>(), [](double x) { return static_cast<std::int64_t>(x); });
      break;
    default:
      return core::Error::unsupported("from_doubles: dtype " +
                                      std::string(core::dtype_name(dtype)) + " is not fillable");
  }
  return t;
}

}  // namespace dtplan::sim
