#include "layout/ranks.h"

#include <string>

#include "layout/algebra.h"
#include "layout/layout_text.h"

namespace dtplan::layout {

std::vector<std::int64_t> all_ranks_from_zero(const Layout& l) {
  std::vector<std::int64_t> values = {0};
  values.reserve(static_cast<std::size_t>(size(l)));
  std::vector<std::int64_t> next;
  for (const Mode& m : flat_modes(l)) {
    if (m.size == 1) continue;
    next.clear();
    next.reserve(values.size() * static_cast<std::size_t>(m.size));
    for (std::int64_t v : values) {
      for (std::int64_t c = 0; c < m.size; ++c) next.push_back(v + c * m.stride);
    }
    values.swap(next);
  }
  return values;
}

core::Result<IntTensor> global_ranks(const Layout& l, std::int64_t w) {
  DTPLAN_TRY(Layout c, complement(l, w));
  std::vector<std::int64_t> offsets = all_ranks_from_zero(c);
  std::vector<std::int64_t> members = all_ranks_from_zero(l);
  IntTensor out;
  out.shape = {static_cast<std::int64_t>(offsets.size()),
               static_cast<std::int64_t>(members.size())};
  out.values.reserve(offsets.size() * members.size());
  for (std::int64_t o : offsets) {
    for (std::int64_t v : members) out.values.push_back(o + v);
  }
  return out;
}

core::Result<IntTensor> remap_to_tensor(const Layout& l, std::span<const std::int64_t> rank_map) {
  auto n = static_cast<std::int64_t>(rank_map.size());
  if (cosize(l) > n) {
    return core::Error::bad_input("The rank map contains " + std::to_string(n) +
                                  " element, which isn't large enough for layout " + to_string(l));
  }
  DTPLAN_TRY(IntTensor groups, global_ranks(l, n));
  for (std::int64_t& v : groups.values) {
    if (v >= n) {
      return core::Error::bad_input("layout " + to_string(l) + " does not tile the rank map of " +
                                    std::to_string(n) + " elements: its copies reach index " +
                                    std::to_string(v));
    }
    v = rank_map[static_cast<std::size_t>(v)];
  }
  IntTensor out;
  out.shape = {groups.shape[0]};
  for (std::int64_t s : top_level_sizes(l)) out.shape.push_back(s);
  out.values = std::move(groups.values);
  return out;
}

}  // namespace dtplan::layout
