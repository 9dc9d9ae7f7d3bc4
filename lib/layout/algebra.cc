#include "layout/algebra.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/checked.h"
#include "layout/layout_text.h"

namespace dtplan::layout {

namespace {

std::string mode_text(const Mode& m) {
  return std::to_string(m.size) + ":" + std::to_string(m.stride);
}

// Composition with a scalar B = s:d (see composition()).
core::Result<Layout> compose_scalar(const Layout& a, const Layout& b, Mode bm) {
  if (bm.stride == 0) return Layout::make(bm.size, 0);
  std::vector<Mode> flat_a = flat_modes(coalesce(a));
  auto what = [&] { return "composition " + to_string(a) + " o " + to_string(b); };
  auto overflow = [&] {
    return core::Error::unsupported(what() + ": a stride overflows 64-bit integers");
  };
  std::vector<Mode> emitted;
  std::int64_t rest_s = bm.size;
  std::int64_t rest_d = bm.stride;
  for (std::size_t t = flat_a.size() - 1; t >= 1; --t) {
    const Mode& at = flat_a[t];
    if (at.size % rest_d != 0 && rest_d % at.size != 0) {
      return core::Error::unsupported(what() + ": stride divisibility fails: mode " +
                                      mode_text(at) +
                                      " of the coalesced layout and the remaining stride " +
                                      std::to_string(rest_d) + " do not divide one another");
    }
    std::int64_t n = std::min(std::max<std::int64_t>(1, at.size / rest_d), rest_s);
    if (rest_s % n != 0) {
      return core::Error::unsupported(what() + ": shape divisibility fails: the remaining size " +
                                      std::to_string(rest_s) + " is not a multiple of " +
                                      std::to_string(n) + " (mode " + mode_text(at) + ")");
    }
    if (n != 1) {
      auto stride = core::checked_mul(rest_d, at.stride, "stride");
      if (!stride.ok()) return overflow();
      emitted.push_back({n, *stride});
    }
    rest_s /= n;
    rest_d = (rest_d + at.size - 1) / at.size;
  }
  if (rest_s != 1 || emitted.empty()) {
    auto stride = core::checked_mul(rest_d, flat_a[0].stride, "stride");
    if (!stride.ok()) return overflow();
    emitted.push_back({rest_s, *stride});
  }
  std::reverse(emitted.begin(), emitted.end());
  auto r = Layout::from_modes(emitted);
  if (!r.ok()) return core::Error::unsupported(what() + ": " + r.error().message);
  return r;
}

}  // namespace

Layout coalesce(const Layout& l) {
  std::vector<Mode> modes = flat_modes(l);
  std::vector<Mode> out = {{1, 0}};  // reversed: out.back() is the head
  for (std::size_t i = modes.size(); i-- > 0;) {
    const Mode& m = modes[i];
    Mode& head = out.back();
    if (m.size == 1) continue;
    if (head.size == 1) {
      head = m;
    } else if (std::int64_t extent = 0;
               !__builtin_mul_overflow(head.size, head.stride, &extent) && extent == m.stride) {
      // An extent past int64 cannot equal a stride, so such modes stay apart.
      head.size *= m.size;
    } else {
      out.push_back(m);
    }
  }
  if (out.size() == 1 && out[0].size == 1) out[0].stride = 1;
  std::reverse(out.begin(), out.end());
  return Layout::from_modes(out).value();  // same function as l, so it is in the domain
}

core::Result<Layout> complement(const Layout& l, std::int64_t w) {
  if (w < 1) {
    return core::Error::bad_input("complement of layout " + to_string(l) + " within " +
                                  std::to_string(w) + ": the target size must be at least 1");
  }
  std::vector<Mode> modes = flat_modes(l);
  std::sort(modes.begin(), modes.end(), [](const Mode& x, const Mode& y) {
    return x.stride != y.stride ? x.stride < y.stride : x.size < y.size;
  });
  std::vector<Mode> out;
  std::int64_t cur = 1;
  for (const Mode& m : modes) {
    if (m.stride == 0 || m.size == 1) continue;
    if (m.stride % cur != 0) {
      return core::Error::bad_input(
          "complement of layout " + to_string(l) + " within " + std::to_string(w) + ": mode " +
          mode_text(m) + " starts at stride " + std::to_string(m.stride) +
          ", which is not a multiple of the " + std::to_string(cur) +
          " indices the smaller modes span (the modes overlap or do not stack)");
    }
    out.push_back({m.stride / cur, cur});
    auto extent = core::checked_mul(m.size, m.stride, "extent");
    if (!extent.ok()) {
      return core::Error::bad_input("complement of layout " + to_string(l) +
                                    ": its extent overflows 64-bit integers");
    }
    cur = *extent;
  }
  out.push_back({(w - 1) / cur + 1, cur});
  std::reverse(out.begin(), out.end());
  DTPLAN_TRY(Layout c, Layout::from_modes(out));
  return coalesce(c);
}

core::Result<Layout> composition(const Layout& a, const Layout& b) {
  if (b.shape().is_leaf()) {
    return compose_scalar(a, b, {b.shape().value(), b.stride().value()});
  }
  std::vector<IntTuple> shapes;
  std::vector<IntTuple> strides;
  for (std::size_t i = 0; i < rank(b); ++i) {
    DTPLAN_TRY(Layout bi, mode(b, static_cast<std::int64_t>(i)));
    DTPLAN_TRY(Layout ri, composition(a, bi));
    shapes.push_back(ri.shape());
    strides.push_back(ri.stride());
  }
  return Layout::make(IntTuple::tuple(std::move(shapes)), IntTuple::tuple(std::move(strides)));
}

}  // namespace dtplan::layout
