#include "support/sim_reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

namespace dtplan::testing {

namespace {

using core::DType;

// Every non-negative finite value of a 16-bit format, by ascending pattern (= ascending value).
struct Format16 {
  std::vector<double> values;
  double overflow = 0;  // |d| >= this rounds to infinity
  std::uint16_t inf = 0;
  std::uint16_t nan = 0;
};

double f16_value(std::uint32_t bits) {  // by the IEEE definition
  const std::uint32_t e = (bits >> 10) & 0x1f;
  const std::uint32_t m = bits & 0x3ff;
  return e == 0 ? std::ldexp(static_cast<double>(m), -24)
                : std::ldexp(1.0 + static_cast<double>(m) / 1024.0, static_cast<int>(e) - 15);
}

const Format16& bf16_format() {
  static const Format16 f = [] {
    Format16 out;
    for (std::uint32_t b = 0; b <= 0x7f7f; ++b) out.values.push_back(std::bit_cast<float>(b << 16));
    out.overflow = std::ldexp(1.99609375, 127);  // max 0x1.fcp127 plus half an ulp (2^119)
    out.inf = 0x7f80;
    out.nan = 0x7fc0;
    return out;
  }();
  return f;
}

const Format16& f16_format() {
  static const Format16 f = [] {
    Format16 out;
    for (std::uint32_t b = 0; b <= 0x7bff; ++b) out.values.push_back(f16_value(b));
    out.overflow = 65520.0;  // max 65504 plus half an ulp (16)
    out.inf = 0x7c00;
    out.nan = 0x7e00;
    return out;
  }();
  return f;
}

std::uint16_t round_to(const Format16& f, double d) {
  if (std::isnan(d)) return f.nan;
  const std::uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  if (a >= f.overflow) return static_cast<std::uint16_t>(sign | f.inf);
  auto hi = std::lower_bound(f.values.begin(), f.values.end(), a);
  if (hi == f.values.end()) return static_cast<std::uint16_t>(sign | (f.values.size() - 1));
  const auto upper = static_cast<std::size_t>(hi - f.values.begin());
  const std::size_t lower = upper > 0 && f.values[upper] != a ? upper - 1 : upper;
  const double dl = a - f.values[lower];
  const double du = f.values[upper] - a;
  std::size_t pick = dl < du ? lower : du < dl ? upper : (lower % 2 == 0 ? lower : upper);
  return static_cast<std::uint16_t>(sign | pick);
}

std::uint64_t width_mask(DType dtype) {
  const int bits = core::dtype_bytes(dtype) * 8;
  return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

std::int64_t as_signed(DType dtype, std::uint64_t bits) {
  if (dtype == DType::kI32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
  return static_cast<std::int64_t>(bits);
}

}  // namespace

std::uint64_t ref_round(DType dtype, double v) {
  switch (dtype) {
    case DType::kF32:
      return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    case DType::kF64:
      return std::bit_cast<std::uint64_t>(v);
    case DType::kBF16:
      return ref_round_bf16(v);
    case DType::kF16:
      return ref_round_f16(v);
    default:
      return 0;
  }
}

std::uint16_t ref_round_bf16(double d) { return round_to(bf16_format(), d); }
std::uint16_t ref_round_f16(double d) { return round_to(f16_format(), d); }

double ref_widen(DType dtype, std::uint64_t bits) {
  switch (dtype) {
    case DType::kF32:
      return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    case DType::kF64:
      return std::bit_cast<double>(bits);
    case DType::kBF16:
      return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
    case DType::kF16: {
      const double v = (bits & 0x7c00) == 0x7c00 ? ((bits & 0x3ff) != 0 ? NAN : INFINITY)
                                                 : f16_value(static_cast<std::uint32_t>(bits));
      return (bits & 0x8000) != 0 ? -v : v;
    }
    default:
      return 0;
  }
}

std::uint64_t element_bits(const sim::Tensor& t, std::int64_t e) {
  std::uint64_t out = 0;
  const auto es = static_cast<std::size_t>(t.element_bytes());
  std::memcpy(&out, t.data() + static_cast<std::size_t>(e) * es, es);  // little-endian host
  return out;
}

void set_element_bits(sim::Tensor& t, std::int64_t e, std::uint64_t bits) {
  const auto es = static_cast<std::size_t>(t.element_bytes());
  std::memcpy(t.data() + static_cast<std::size_t>(e) * es, &bits, es);
}

sim::Tensor random_tensor(DType dtype, const sim::Shape& shape, std::mt19937_64& rng) {
  sim::Tensor t = sim::Tensor::zeros(dtype, shape).value();
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-10, 13);
  for (std::int64_t e = 0; e < t.numel(); ++e) {
    if (core::is_floating(dtype) && dtype != DType::kF8E4M3) {
      double v = std::ldexp(mantissa(rng), exponent(rng));
      if (rng() % 2 == 0) v = -v;
      set_element_bits(t, e, ref_round(dtype, v));
    } else {
      set_element_bits(t, e, rng() & width_mask(dtype));
    }
  }
  return t;
}

std::uint64_t RefArith::read(std::uint64_t x) const {
  if (op != sim::ReduceOp::kAvg || !core::is_floating(dtype)) return x;
  // 1/n in double, rounded to fp32 (the compute type) and then to the dtype.
  const double inv = 1.0 / static_cast<double>(n);
  const double scale =
      dtype == DType::kF64 ? inv : ref_widen(dtype, ref_round(dtype, static_cast<float>(inv)));
  return ref_round(dtype, ref_widen(dtype, x) * scale);
}

std::uint64_t RefArith::combine(std::uint64_t acc, std::uint64_t x) const {
  if (!core::is_floating(dtype)) {
    const std::int64_t a = as_signed(dtype, acc);
    const std::int64_t b = as_signed(dtype, x);
    switch (op) {
      case sim::ReduceOp::kSum:
      case sim::ReduceOp::kAvg:
        return (acc + x) & width_mask(dtype);
      case sim::ReduceOp::kMax:
        return b > a ? x : acc;
      case sim::ReduceOp::kMin:
        return b < a ? x : acc;
    }
  }
  const double a = ref_widen(dtype, acc);
  const double b = ref_widen(dtype, x);
  switch (op) {
    case sim::ReduceOp::kSum:
    case sim::ReduceOp::kAvg:
      return ref_round(dtype, a + b);
    case sim::ReduceOp::kMax:
      return std::isnan(a) || b > a ? x : acc;
    case sim::ReduceOp::kMin:
      return std::isnan(a) || b < a ? x : acc;
  }
  return acc;
}

std::uint64_t RefArith::finish(std::uint64_t acc) const {
  if (op != sim::ReduceOp::kAvg || core::is_floating(dtype)) return acc;
  return static_cast<std::uint64_t>(as_signed(dtype, acc) / n) & width_mask(dtype);
}

std::uint64_t ref_ring_reduce(const RefArith& arith, const sim::GroupLayout& layout,
                              std::int32_t end_position, const std::vector<std::uint64_t>& x) {
  const auto n = static_cast<std::int32_t>(layout.ring.size());
  auto at = [&](std::int32_t k) {
    return x[static_cast<std::size_t>(
        layout.ring[static_cast<std::size_t>((end_position + k) % n)])];
  };
  std::uint64_t acc = arith.read(at(1));
  for (std::int32_t k = 2; k <= n; ++k) acc = arith.combine(acc, arith.read(at(k)));
  return arith.finish(acc);
}

namespace {

std::uint64_t subtree(const RefArith& arith, const sim::GroupLayout& layout,
                      const sim::NodeTree& tree, std::int32_t node,
                      const std::vector<std::uint64_t>& x) {
  const auto& chain = layout.nodes[static_cast<std::size_t>(node)];
  std::uint64_t acc = arith.read(x[static_cast<std::size_t>(chain.back())]);
  for (std::size_t j = chain.size() - 1; j-- > 0;) {
    acc = arith.combine(acc, arith.read(x[static_cast<std::size_t>(chain[j])]));
  }
  for (std::int32_t child : tree.children[static_cast<std::size_t>(node)]) {
    acc = arith.combine(acc, subtree(arith, layout, tree, child, x));
  }
  return acc;
}

}  // namespace

std::uint64_t ref_tree_reduce(const RefArith& arith, const sim::GroupLayout& layout, int which,
                              const std::vector<std::uint64_t>& x) {
  const sim::NodeTree tree =
      sim::binary_tree(static_cast<std::int32_t>(layout.nodes.size()), which);
  return arith.finish(subtree(arith, layout, tree, tree.root, x));
}

sim::RankTensors reference_run(const sim::CollectiveCall& call, const sim::RankTensors& inputs,
                               const std::vector<sim::ReductionOrder>& orders,
                               std::int64_t gpus_per_node) {
  using collective::Collective;
  sim::RankTensors out = inputs;
  for (std::size_t gi = 0; gi < call.groups.size(); ++gi) {
    const sim::Group& group = call.groups[gi];
    const auto n = static_cast<std::int64_t>(group.size());
    const sim::Tensor& first = inputs.at(group[0]);
    const std::int64_t numel = first.numel();
    const sim::Shape out_shape =
        sim::output_shape(call.collective, n, first.shape(), "ref").value();
    std::vector<sim::Tensor> results;
    for (std::int64_t g = 0; g < n; ++g) {
      results.push_back(sim::Tensor::zeros(first.dtype(), out_shape).value());
    }
    auto in = [&](std::int64_t g, std::int64_t e) {
      return element_bits(inputs.at(group[static_cast<std::size_t>(g)]), e);
    };
    const sim::GroupLayout layout = sim::group_layout(group, gpus_per_node, "ref").value();
    const RefArith arith{first.dtype(), call.op, n};
    // The reduction of element e of every input, ending at `end` (ring) or by tree `which`.
    auto reduce = [&](std::int64_t e, std::int32_t end, int which) {
      std::vector<std::uint64_t> x;
      for (std::int64_t g = 0; g < n; ++g) x.push_back(in(g, e));
      return orders[gi] == sim::ReductionOrder::kTree ? ref_tree_reduce(arith, layout, which, x)
                                                      : ref_ring_reduce(arith, layout, end, x);
    };
    std::vector<std::uint64_t> reduced;  // all_reduce: computed once, copied to every member
    if (call.collective == Collective::kAllReduce) {
      const std::int64_t chunk = (numel + n - 1) / n;
      for (std::int64_t e = 0; e < numel; ++e) {
        const int which = e < (numel + 1) / 2 ? 0 : 1;
        reduced.push_back(n == 1 ? in(0, e)
                                 : reduce(e, static_cast<std::int32_t>(e / chunk), which));
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      sim::Tensor& r = results[static_cast<std::size_t>(j)];
      switch (call.collective) {
        case Collective::kAllGather:
          for (std::int64_t e = 0; e < n * numel; ++e)
            set_element_bits(r, e, in(e / numel, e % numel));
          break;
        case Collective::kAllToAll: {
          const std::int64_t b = numel / n;
          for (std::int64_t e = 0; e < numel; ++e) set_element_bits(r, e, in(e / b, j * b + e % b));
          break;
        }
        case Collective::kBroadcast:
          for (std::int64_t e = 0; e < numel; ++e) set_element_bits(r, e, in(call.root, e));
          break;
        case Collective::kAllReduce:
          for (std::int64_t e = 0; e < numel; ++e) {
            set_element_bits(r, e, reduced[static_cast<std::size_t>(e)]);
          }
          break;
        case Collective::kReduceScatter: {
          const std::int64_t b = numel / n;
          const std::int32_t end = layout.ring_position[static_cast<std::size_t>(j)];
          for (std::int64_t k = 0; k < b; ++k) {
            const int which = k < (b + 1) / 2 ? 0 : 1;
            set_element_bits(r, k, n == 1 ? in(0, k) : reduce(j * b + k, end, which));
          }
          break;
        }
        default:
          break;
      }
    }
    for (std::int64_t g = 0; g < n; ++g) {
      out.set(group[static_cast<std::size_t>(g)], std::move(results[static_cast<std::size_t>(g)]));
    }
  }
  return out;
}

std::vector<sim::Group> random_groups(std::int64_t world, std::int64_t n, std::int64_t count,
                                      std::mt19937_64& rng) {
  std::vector<std::int64_t> ranks(static_cast<std::size_t>(world));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  std::vector<sim::Group> out;
  for (std::int64_t i = 0; i < count && (i + 1) * n <= world; ++i) {
    out.emplace_back(ranks.begin() + i * n, ranks.begin() + (i + 1) * n);
  }
  return out;
}

}  // namespace dtplan::testing
