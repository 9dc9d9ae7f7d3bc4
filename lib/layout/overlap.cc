#include "layout/overlap.h"

#include <algorithm>
#include <vector>

#include "core/checked.h"
#include "layout/algebra.h"
#include "layout/ranks.h"

namespace dtplan::layout {

bool is_injective(const Layout& l) {
  std::vector<std::int64_t> values = all_ranks_from_zero(l);
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) == values.end();
}

bool is_orthogonal(const Layout& l) {
  std::vector<Mode> modes = flat_modes(coalesce(l));
  for (const Mode& m : modes) {
    if (m.size > 1 && m.stride == 0) return false;
  }
  std::sort(modes.begin(), modes.end(), [](const Mode& x, const Mode& y) {
    return x.stride != y.stride ? x.stride > y.stride : x.size > y.size;
  });
  for (std::size_t i = 0; i + 1 < modes.size(); ++i) {
    // An extent past int64 exceeds every stride, so it cannot divide one.
    auto extent = core::checked_mul(modes[i + 1].stride, modes[i + 1].size, "extent");
    if (!extent.ok() || modes[i].stride % *extent != 0) return false;
  }
  return true;
}

bool is_sorted(const Layout& l) {
  std::vector<Mode> modes = flat_modes(coalesce(l));
  for (std::size_t i = 0; i + 1 < modes.size(); ++i) {
    if (modes[i].stride < modes[i + 1].stride) return false;
  }
  return true;
}

}  // namespace dtplan::layout
