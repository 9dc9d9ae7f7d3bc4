#include "sim/strided_ops.h"

#include <algorithm>
#include <string>

#include "placement/chunk.h"
#include "sim/local_ops.h"

namespace dtplan::sim {

core::Result<Tensor> strided_split(const Tensor& t, std::int64_t dim, std::int64_t sf,
                                   std::int64_t n, std::int64_t r) {
  if (sf < 1 || n < 1 || r < 0 || r >= n) {
    return core::Error::bad_input("strided_split: sf " + std::to_string(sf) + ", n " +
                                  std::to_string(n) + ", rank " + std::to_string(r) +
                                  " is not a valid split of " + describe(t));
  }
  if (dim < 0 || dim >= t.rank()) {
    return core::Error::bad_input("strided_split: dim " + std::to_string(dim) +
                                  " is out of range for " + describe(t));
  }
  const std::int64_t length = t.shape()[static_cast<std::size_t>(dim)];
  DTPLAN_TRY(std::vector<placement::IndexRange> ranges,
             placement::strided_positions(length, sf, n, r));
  if (ranges.empty()) return narrow(t, dim, 0, 0);
  if (ranges.size() == 1) return narrow(t, dim, ranges[0].begin, ranges[0].length());
  std::vector<Tensor> parts;
  parts.reserve(ranges.size());
  for (const placement::IndexRange& range : ranges) {
    DTPLAN_TRY(Tensor part, narrow(t, dim, range.begin, range.length()));
    parts.push_back(std::move(part));
  }
  return cat(parts, dim);
}

std::int64_t strided_max_length(std::int64_t length, std::int64_t sf, std::int64_t n) {
  std::int64_t best = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    best = std::max(best, placement::strided_length(length, sf, n, r));
  }
  return best;
}

std::vector<std::int64_t> strided_gather_positions(std::int64_t length, std::int64_t sf,
                                                   std::int64_t n, std::int64_t block) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(length));
  for (std::int64_t g = 0; g < length; ++g) {
    const placement::Owner o = placement::strided_owner(length, sf, n, g);
    out[static_cast<std::size_t>(g)] = o.coord * block + o.local;
  }
  return out;
}

}  // namespace dtplan::sim
