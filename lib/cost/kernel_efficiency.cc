#include "cost/kernel_efficiency.h"

#include <array>
#include <cmath>
#include <string>

#include "core/units.h"

namespace dtplan::cost {

namespace {

constexpr std::array<std::string_view, 3> kKernelNames = {"flash2", "flash3", "cudnn"};

}  // namespace

std::string_view attention_kernel_name(AttentionKernel kernel) {
  return kKernelNames[static_cast<std::size_t>(kernel)];
}

core::Result<AttentionKernel> parse_attention_kernel(std::string_view text, std::string_view what) {
  for (std::size_t i = 0; i < kKernelNames.size(); ++i) {
    if (text == kKernelNames[i]) return static_cast<AttentionKernel>(i);
  }
  return core::Error::bad_input(std::string(what) + ": unknown attention kernel '" +
                                std::string(text) + "' (known: flash2, flash3, cudnn)");
}

double efficiency_at(std::span<const EfficiencyPoint> points, double key) {
  if (key <= points.front().at) return points.front().efficiency;
  if (key >= points.back().at) return points.back().efficiency;
  std::size_t hi = 1;
  while (points[hi].at < key) ++hi;
  const EfficiencyPoint& a = points[hi - 1];
  const EfficiencyPoint& b = points[hi];
  const double t = (std::log2(key) - std::log2(a.at)) / (std::log2(b.at) - std::log2(a.at));
  return a.efficiency + t * (b.efficiency - a.efficiency);
}

core::Status check_efficiency_table(std::span<const EfficiencyPoint> points,
                                    std::string_view where) {
  if (points.empty()) {
    return core::Error::bad_input(std::string(where) + ": needs at least one [key, efficiency]");
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = std::string(where) + "[" + std::to_string(i) + "]";
    if (!(points[i].at > 0) || !std::isfinite(points[i].at)) {
      return core::Error::bad_input(at + ": key must be > 0, got " +
                                    core::format_fixed(points[i].at, 3));
    }
    if (!(points[i].efficiency > 0 && points[i].efficiency <= 1)) {
      return core::Error::bad_input(at + ": efficiency must be in (0, 1], got " +
                                    core::format_fixed(points[i].efficiency, 4));
    }
    if (i > 0 && !(points[i].at > points[i - 1].at)) {
      return core::Error::bad_input(at + ": keys must be strictly increasing");
    }
  }
  return {};
}

}  // namespace dtplan::cost
