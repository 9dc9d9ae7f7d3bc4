#pragma once
// Test helpers for the layout algebra: parse a layout literal, enumerate every small flat layout,
// and draw random nested or random orthogonal layouts from a seeded generator.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "layout/layout.h"
#include "layout/layout_text.h"

namespace dtplan::testing {

// The layout written `text`; fails the test if it does not parse.
inline layout::Layout lay(std::string_view text) {
  auto r = layout::parse_layout(text);
  REQUIRE_MESSAGE(r.ok(), text);
  return *r;
}

// Every flat layout with 1..max_modes modes whose sizes and strides are drawn from the lists; one
// mode gives a scalar layout.
inline std::vector<layout::Layout> all_flat_layouts(int max_modes,
                                                    const std::vector<std::int64_t>& sizes,
                                                    const std::vector<std::int64_t>& strides) {
  std::vector<layout::Layout> out;
  std::vector<std::vector<layout::Mode>> level = {{}};
  for (int n = 1; n <= max_modes; ++n) {
    std::vector<std::vector<layout::Mode>> next;
    for (const auto& prefix : level) {
      for (std::int64_t s : sizes) {
        for (std::int64_t d : strides) {
          auto modes = prefix;
          modes.push_back({s, d});
          out.push_back(layout::Layout::from_modes(modes).value());
          next.push_back(std::move(modes));
        }
      }
    }
    level = std::move(next);
  }
  return out;
}

inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

// A random shape tree (1 to 3 children per tuple, at most `depth` levels) with sizes 1..4, and a
// stride tree of the same structure with strides 0..12.
inline void random_trees(std::mt19937_64& rng, int depth, layout::IntTuple& shape,
                         layout::IntTuple& stride) {
  if (depth == 0 || uniform(rng, 0, 2) == 0) {
    shape = uniform(rng, 1, 4);
    stride = uniform(rng, 0, 12);
    return;
  }
  std::vector<layout::IntTuple> shapes;
  std::vector<layout::IntTuple> strides;
  for (std::int64_t i = uniform(rng, 1, 3); i > 0; --i) {
    layout::IntTuple s = 0;
    layout::IntTuple d = 0;
    random_trees(rng, depth - 1, s, d);
    shapes.push_back(s);
    strides.push_back(d);
  }
  shape = layout::IntTuple::tuple(std::move(shapes));
  stride = layout::IntTuple::tuple(std::move(strides));
}

// A random nested layout of at most 256 coordinates (drawn again until it is that small).
inline layout::Layout random_layout(std::mt19937_64& rng) {
  while (true) {
    layout::IntTuple shape = 0;
    layout::IntTuple stride = 0;
    random_trees(rng, 3, shape, stride);
    if (layout::product(shape) <= 256) return layout::Layout::make(shape, stride).value();
  }
}

// A random flat orthogonal layout: 1..max_modes modes of sizes 1..4 stacked in a random order with
// random gaps (each stride a multiple of the extent below it), then listed in another random order.
inline layout::Layout random_orthogonal(std::mt19937_64& rng, int max_modes) {
  auto n = static_cast<std::size_t>(uniform(rng, 1, max_modes));
  std::vector<layout::Mode> modes(n);
  std::int64_t cur = 1;
  for (auto& m : modes) {
    m.size = uniform(rng, 1, 4);
    m.stride = cur * uniform(rng, 1, 3);
    cur = m.stride * m.size;
  }
  std::shuffle(modes.begin(), modes.end(), rng);
  return layout::Layout::from_modes(modes).value();
}

}  // namespace dtplan::testing
