#include "layout/layout.h"

#include <cassert>
#include <cstdint>
#include <string>

#include "core/checked.h"

namespace dtplan::layout {

namespace {

std::string text(const IntTuple& shape, const IntTuple& stride) {
  return to_string(shape) + ":" + to_string(stride);
}

// The top-level modes as (shape, stride) pairs; a scalar layout is its own single mode.
std::vector<std::pair<IntTuple, IntTuple>> top_modes(const Layout& l) {
  std::vector<std::pair<IntTuple, IntTuple>> out;
  if (l.shape().is_leaf()) {
    out.emplace_back(l.shape(), l.stride());
    return out;
  }
  for (std::size_t i = 0; i < l.shape().elements().size(); ++i) {
    out.emplace_back(l.shape().elements()[i], l.stride().elements()[i]);
  }
  return out;
}

core::Result<Layout> from_top_modes(const std::vector<std::pair<IntTuple, IntTuple>>& modes) {
  std::vector<IntTuple> shapes;
  std::vector<IntTuple> strides;
  for (const auto& [s, d] : modes) {
    shapes.push_back(s);
    strides.push_back(d);
  }
  return Layout::make(IntTuple::tuple(std::move(shapes)), IntTuple::tuple(std::move(strides)));
}

}  // namespace

core::Result<Layout> Layout::make(IntTuple shape, IntTuple stride) {
  if (!congruent(shape, stride)) {
    return core::Error::bad_input("layout " + text(shape, stride) + ": sizes " + to_string(shape) +
                                  " and strides " + to_string(stride) + " don't match");
  }
  std::vector<std::int64_t> sizes = flatten(shape);
  std::vector<std::int64_t> strides = flatten(stride);
  std::int64_t last = 0;
  std::int64_t count = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 1 || strides[i] < 0) {
      return core::Error::bad_input(
          "layout " + text(shape, stride) + ": size " + std::to_string(sizes[i]) + " with stride " +
          std::to_string(strides[i]) + " is outside the domain (sizes >= 1, strides >= 0)");
    }
    auto span = core::checked_mul(sizes[i] - 1, strides[i], "cosize");
    auto next = span.ok() ? core::checked_add(last, *span, "cosize") : span;
    auto grown = core::checked_mul(count, sizes[i], "size");
    if (!next.ok() || !grown.ok() || *next == INT64_MAX) {
      return core::Error::bad_input("layout " + text(shape, stride) +
                                    ": its size or cosize overflows 64-bit integers");
    }
    last = *next;
    count = *grown;
  }
  return Layout(std::move(shape), std::move(stride));
}

core::Result<Layout> Layout::from_modes(std::span<const Mode> modes) {
  if (modes.size() == 1) return make(modes[0].size, modes[0].stride);
  std::vector<IntTuple> shapes;
  std::vector<IntTuple> strides;
  for (const Mode& m : modes) {
    shapes.emplace_back(m.size);
    strides.emplace_back(m.stride);
  }
  return make(IntTuple::tuple(std::move(shapes)), IntTuple::tuple(std::move(strides)));
}

core::Result<Layout> Layout::row_major(std::span<const std::int64_t> sizes) {
  DTPLAN_CHECK(core::checked_product(sizes, "row-major layout size"));
  std::vector<IntTuple> elems(sizes.begin(), sizes.end());
  IntTuple shape = IntTuple::tuple(std::move(elems));
  IntTuple stride = suffix_product(shape);
  return make(std::move(shape), std::move(stride));
}

std::vector<Mode> flat_modes(const Layout& l) {
  std::vector<std::int64_t> sizes = flatten(l.shape());
  std::vector<std::int64_t> strides = flatten(l.stride());
  std::vector<Mode> out(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) out[i] = {sizes[i], strides[i]};
  return out;
}

std::int64_t size(const Layout& l) { return product(l.shape()); }

std::int64_t cosize(const Layout& l) {
  std::int64_t last = 0;
  for (const Mode& m : flat_modes(l)) last += (m.size - 1) * m.stride;
  return last + 1;
}

std::size_t rank(const Layout& l) { return l.shape().rank(); }

std::vector<std::int64_t> top_level_sizes(const Layout& l) {
  std::vector<std::int64_t> out;
  for (const auto& [s, d] : top_modes(l)) out.push_back(product(s));
  return out;
}

core::Result<Layout> mode(const Layout& l, std::int64_t i) {
  auto n = static_cast<std::int64_t>(rank(l));
  if (i < -n || i >= n) {
    return core::Error::bad_input("Dim " + std::to_string(i) + " is out of range for layout with " +
                                  std::to_string(n) + " dimensions. Expected dim to be in range [" +
                                  std::to_string(-n) + ", " + std::to_string(n - 1) + "].");
  }
  if (i < 0) i += n;
  auto modes = top_modes(l);
  auto& [shape, stride] = modes[static_cast<std::size_t>(i)];
  return Layout::make(std::move(shape), std::move(stride));  // a sub-layout stays in the domain
}

std::int64_t value_at(const Layout& l, std::int64_t index) {
  assert(index >= 0);
  std::vector<Mode> modes = flat_modes(l);
  std::int64_t value = 0;
  for (std::size_t i = modes.size(); i-- > 0;) {
    std::int64_t c = i == 0 ? index : index % modes[i].size;
    value += c * modes[i].stride;
    index /= modes[i].size;
  }
  return value;
}

Layout nest(const Layout& l) {
  return Layout::make(IntTuple::tuple({l.shape()}), IntTuple::tuple({l.stride()})).value();
}

core::Result<Layout> splice(const Layout& l, std::int64_t begin, std::int64_t end,
                            const Layout& replacement) {
  auto modes = top_modes(l);
  auto n = static_cast<std::int64_t>(modes.size());
  if (begin < 0 || begin > end || end > n) {
    return core::Error::bad_input("splice [" + std::to_string(begin) + ", " + std::to_string(end) +
                                  ") is out of range for layout " + text(l.shape(), l.stride()) +
                                  " with " + std::to_string(n) + " dimensions");
  }
  auto inserted = top_modes(replacement);
  modes.erase(modes.begin() + begin, modes.begin() + end);
  modes.insert(modes.begin() + begin, inserted.begin(), inserted.end());
  return from_top_modes(modes);
}

core::Result<Layout> concat(std::span<const Layout> layouts) {
  std::vector<std::pair<IntTuple, IntTuple>> modes;
  for (const Layout& l : layouts) {
    auto m = top_modes(l);
    modes.insert(modes.end(), m.begin(), m.end());
  }
  return from_top_modes(modes);
}

}  // namespace dtplan::layout
