#pragma once
// The reproducible data a verification run fills a plan's source with (verify.h), and the error
// bound its results are checked against.
//
// Every rank's source element at global flat index i is contribution c(i, k), where k numbers the
// rank's coordinate on the source's Partial mesh dims row-major (k = 0 without Partial dims, so
// replicas hold equal values). The global value is the source's reduction of the contributions:
//   P(sum)/P(avg) dims  g(i) = (sum over k of c(i, k)) / A, A = product of the P(avg) dims' sizes
//   P(max), P(min)      g(i) = max or min over k;   no Partial: g(i) = c(i, 0).
//
// Two value kinds:
//   kInteger  every c(i, k) is a multiple of unit = Q * A (Q: product of the group sizes of the
//     plan's R -> P(sum) partition steps, which divide by them), |c| <= unit * bound, with bound
//     chosen so that C * unit * bound <= 2^p (C contributors; p = significand bits: f32 24,
//     bf16 8, f16 11, f64 53; i32 30, i64 52): every partial sum, every division by a partition
//     size or avg_scale and every reduction is an integer of magnitude <= 2^p, exact in any
//     order. Results are then checked exactly, unless `exact` is false: the plan runs NCCL's avg
//     (a premultiplication by the rounded 1/n) over a group whose size is not a power of two, or
//     no bound >= 1 fits; those use the float bound below.
//   kFloat    c(i, k) uniform in [-1, 1), rounded to the dtype (integer dtypes use kInteger).
// Float bound (documented in README): |result - g(i)| <= (C + 4) * u * S(i), u = 2^-p the unit
// roundoff and S(i) = (sum over k of |c(i, k)|) / A: C - 1 additions in any association, one
// rounding for a partition, avg premultiplication or avg_scale division, one for the final store,
// with a margin of one. Max and min are checked exactly (they select, never round).

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "placement/placement.h"
#include "redist/redist_plan.h"
#include "sim/tensor.h"

namespace dtplan::sim {

enum class ValueKind : std::uint8_t { kInteger, kFloat };

// "int", "float".
std::string_view value_kind_name(ValueKind kind);
core::Result<ValueKind> parse_value_kind(std::string_view text, std::string_view what);

class SourceValues {
 public:
  // The values for `plan`'s source. Errors (kUnsupported) for a dtype with no p above (bool, i8,
  // u8, f8, complex).
  static core::Result<SourceValues> make(const redist::RedistPlan& plan, ValueKind kind,
                                         std::uint64_t seed);

  // c(i, k), already rounded to the dtype (exact as a double).
  [[nodiscard]] double contribution(std::int64_t i, std::int64_t k) const;
  // The global value g(i) and the scale S(i) of the float bound.
  [[nodiscard]] double global(std::int64_t i) const;
  [[nodiscard]] double scale(std::int64_t i) const;
  // The largest |result - g(i)| accepted at index i.
  [[nodiscard]] double tolerance(std::int64_t i) const;
  // g(i) and tolerance(i) for every i in [0, numel), in one pass over the contributions.
  void globals(std::int64_t numel, std::vector<double>& global,
               std::vector<double>& tolerance) const;

  [[nodiscard]] ValueKind kind() const { return kind_; }
  [[nodiscard]] std::int64_t contributors() const { return contributors_; }
  [[nodiscard]] std::int64_t unit() const { return unit_; }
  [[nodiscard]] std::int64_t bound() const { return bound_; }
  // True when every result must equal g(i) exactly.
  [[nodiscard]] bool exact() const { return exact_; }

 private:
  SourceValues() = default;
  [[nodiscard]] double raw(std::int64_t i, std::int64_t k) const;

  ValueKind kind_ = ValueKind::kInteger;
  core::DType dtype_ = core::DType::kF32;
  std::uint64_t seed_ = 0;
  std::int64_t contributors_ = 1;
  std::int64_t avg_divisor_ = 1;
  std::int64_t unit_ = 1;
  std::int64_t bound_ = 1;
  bool exact_ = true;
  bool selecting_ = false;  // P(max) / P(min): g selects one contribution
  placement::ReduceOp op_ = placement::ReduceOp::kSum;
  double roundoff_ = 0;
};

// Every element of `t` as a double (bf16/f16 widened exactly). @pre t.has_data(), its dtype has a p
// above.
std::vector<double> to_doubles(const Tensor& t);

// A tensor of `dtype` and `shape` holding `values` (each exactly representable in the dtype).
core::Result<Tensor> from_doubles(core::DType dtype, Shape shape, std::span<const double> values);

}  // namespace dtplan::sim
