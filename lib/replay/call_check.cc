#include "replay/call_check.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "sim/fake_process_group.h"
#include "sim/half_float.h"

namespace dtplan::replay {

namespace {

using core::DType;

std::int64_t fill_value(std::int64_t rank, std::int64_t i) { return (5 * rank + 3 * i) % 9 - 4; }

template <class T>
void fill_typed(sim::Tensor& t, std::int64_t rank) {
  auto v = t.values<T>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<T>(fill_value(rank, static_cast<std::int64_t>(i)));
  }
}

template <class F>
void fill_half(sim::Tensor& t, std::int64_t rank, F to_half) {
  auto v = t.values<std::uint16_t>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = to_half(static_cast<float>(fill_value(rank, static_cast<std::int64_t>(i))));
  }
}

// The value of element e of a floating tensor.
double element_value(const sim::Tensor& t, std::int64_t e) {
  const auto i = static_cast<std::size_t>(e);
  switch (t.dtype()) {
    case DType::kF32:
      return t.values<float>()[i];
    case DType::kF64:
      return t.values<double>()[i];
    case DType::kBF16:
      return sim::bf16_to_f32(t.values<std::uint16_t>()[i]);
    default:  // kF16
      return sim::f16_to_f32(t.values<std::uint16_t>()[i]);
  }
}

// Significand bits of a floating dtype; 0 for the others.
int significand_bits(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 24;
    case DType::kF64:
      return 53;
    case DType::kBF16:
      return 8;
    case DType::kF16:
      return 11;
    default:
      return 0;
  }
}

// The tolerance of a group of n (0: bitwise), as call_check.h states.
double tolerance(const sim::CollectiveCall& call, DType dtype, std::int64_t n) {
  const int p = significand_bits(dtype);
  if (p == 0 || !collective::facts(call.collective).reduces) return 0;
  const bool exact_sums = 4 * n <= (std::int64_t{1} << p);
  const auto nd = static_cast<double>(n);
  const double u = std::ldexp(1.0, -p);
  if (call.op == sim::ReduceOp::kSum) return exact_sums ? 0 : 8 * nd * nd * u;
  if (call.op == sim::ReduceOp::kAvg) {
    const bool exact = exact_sums && std::has_single_bit(static_cast<std::uint64_t>(n));
    return exact ? 0 : 8 * nd * u;
  }
  return 0;  // max, min: exact
}

// Elements of `got` that differ from `want` (bitwise, or within `tolerance` when it is > 0).
std::int64_t count_wrong(const sim::Tensor& got, const sim::Tensor& want, double tolerance) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape() || !got.has_data() ||
      !want.has_data()) {
    return std::max(got.numel(), want.numel());
  }
  const std::int64_t width = got.element_bytes();
  std::int64_t wrong = 0;
  for (std::int64_t e = 0; e < got.numel(); ++e) {
    if (std::memcmp(got.data() + e * width, want.data() + e * width,
                    static_cast<std::size_t>(width)) == 0) {
      continue;
    }
    if (tolerance > 0 && std::abs(element_value(got, e) - element_value(want, e)) <= tolerance) {
      continue;
    }
    ++wrong;
  }
  return wrong;
}

}  // namespace

core::Result<sim::Tensor> fill_input(DType dtype, const sim::Shape& shape, std::int64_t rank) {
  DTPLAN_TRY(sim::Tensor t, sim::Tensor::uninitialized(dtype, shape));
  switch (dtype) {
    case DType::kF32:
      fill_typed<float>(t, rank);
      break;
    case DType::kF64:
      fill_typed<double>(t, rank);
      break;
    case DType::kI32:
      fill_typed<std::int32_t>(t, rank);
      break;
    case DType::kI64:
      fill_typed<std::int64_t>(t, rank);
      break;
    case DType::kBF16:
      fill_half(t, rank, sim::f32_to_bf16);
      break;
    case DType::kF16:
      fill_half(t, rank, sim::f32_to_f16);
      break;
    default: {
      const std::int64_t width = t.element_bytes();
      std::byte* p = t.data();
      for (std::int64_t i = 0; i < t.numel(); ++i) {
        for (std::int64_t j = 0; j < width; ++j) {
          p[i * width + j] = static_cast<std::byte>((31 * rank + 7 * i + j) & 0xff);
        }
      }
    }
  }
  return t;
}

core::Result<CallCheck> check_call(ReplayGroup& pg, const sim::CollectiveCall& call, DType dtype,
                                   const sim::Shape& shape, std::int64_t max_bytes) {
  DTPLAN_CHECK(sim::validate_call(call, pg.world_size()));
  const std::vector<std::int64_t> held = pg.held_ranks();
  const std::set<std::int64_t> held_set(held.begin(), held.end());
  // The groups with a held member: the fake runs only those.
  sim::CollectiveCall local = call;
  local.groups.clear();
  for (const sim::Group& g : call.groups) {
    for (std::int64_t r : g) {
      if (held_set.count(r) != 0) {
        local.groups.push_back(g);
        break;
      }
    }
  }
  // The fake's inputs and outputs, decided alike on every process.
  double bytes = 0;
  for (const sim::Group& g : local.groups) {
    const auto n = static_cast<std::int64_t>(g.size());
    DTPLAN_TRY(sim::Shape out, sim::output_shape(call.collective, n, shape, sim::describe(call)));
    DTPLAN_TRY(std::int64_t in_elems, sim::checked_numel(shape, dtype, "check input"));
    DTPLAN_TRY(std::int64_t out_elems, sim::checked_numel(out, dtype, "check output"));
    bytes += static_cast<double>(n) * static_cast<double>(in_elems + out_elems) *
             static_cast<double>(core::dtype_bytes(dtype));
  }
  DTPLAN_TRY(std::vector<double> worst, pg.reduce_over_world({bytes}, sim::ReduceOp::kMax));
  if (worst.size() != 1) {
    return core::Error::internal(std::string(pg.backend_name()) +
                                 ": reduce_over_world returned the wrong count");
  }
  if (worst[0] > static_cast<double>(max_bytes)) return CallCheck{0, 0, true};

  sim::RankTensors real(pg.world_size());
  sim::RankTensors want(pg.world_size());
  for (const sim::Group& g : local.groups) {
    for (std::int64_t r : g) {
      DTPLAN_TRY(sim::Tensor t, fill_input(dtype, shape, r));
      if (held_set.count(r) != 0) real.set(r, t);
      want.set(r, std::move(t));
    }
  }
  DTPLAN_CHECK(pg.run(call, real));
  if (!local.groups.empty()) {
    DTPLAN_TRY(sim::FakeProcessGroup fake,
               sim::FakeProcessGroup::create({.world_size = pg.world_size()}));
    DTPLAN_CHECK(fake.run(local, want));
  }
  double elements = 0;
  double wrong = 0;
  for (const sim::Group& g : local.groups) {
    const double tol = tolerance(call, dtype, static_cast<std::int64_t>(g.size()));
    for (std::int64_t r : g) {
      if (held_set.count(r) == 0) continue;
      elements += static_cast<double>(want.at(r).numel());
      wrong += static_cast<double>(count_wrong(real.at(r), want.at(r), tol));
    }
  }
  DTPLAN_TRY(std::vector<double> sums,
             pg.reduce_over_world({elements, wrong}, sim::ReduceOp::kSum));
  if (sums.size() != 2) {
    return core::Error::internal(std::string(pg.backend_name()) +
                                 ": reduce_over_world returned the wrong count");
  }
  return CallCheck{static_cast<std::int64_t>(sums[0]), static_cast<std::int64_t>(sums[1]), false};
}

}  // namespace dtplan::replay
