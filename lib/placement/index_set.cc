#include "placement/index_set.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace dtplan::placement {

IndexSet IndexSet::full(std::int64_t length) {
  assert(length >= 0);
  IndexSet out;
  if (length > 0) out.ranges_.push_back({0, length});
  out.count_ = length;
  return out;
}

core::Result<IndexSet> IndexSet::select(std::span<const IndexRange> positions,
                                        std::int64_t anchor_position) const {
  assert(anchor_position >= 0 && anchor_position <= count_);
  IndexSet out;
  // Walk the parent ranges once; `base` is the local position of ranges_[k].begin.
  std::size_t k = 0;
  std::int64_t base = 0;
  auto seek = [&](std::int64_t pos) {
    while (k < ranges_.size() && base + ranges_[k].length() <= pos) {
      base += ranges_[k].length();
      ++k;
    }
  };
  // Offset of the selection: the parent element at the anchor, or the parent's end.
  if (anchor_position < count_) {
    seek(anchor_position);
    out.offset_ = ranges_[k].begin + (anchor_position - base);
  } else {
    out.offset_ = ranges_.empty() ? offset_ : ranges_.back().end;
  }
  k = 0;
  base = 0;
  for (const IndexRange& want : positions) {
    assert(want.begin >= 0 && want.begin <= want.end && want.end <= count_);
    std::int64_t pos = want.begin;
    while (pos < want.end) {
      seek(pos);
      const IndexRange& have = ranges_[k];
      std::int64_t take = std::min(want.end - pos, base + have.length() - pos);
      std::int64_t begin = have.begin + (pos - base);
      if (!out.ranges_.empty() && out.ranges_.back().end == begin) {
        out.ranges_.back().end += take;
      } else {
        if (out.ranges_.size() == kMaxIndexRanges) {
          return core::Error::unsupported("index set: a rank would own more than " +
                                          std::to_string(kMaxIndexRanges) +
                                          " separate index ranges of one tensor dim");
        }
        out.ranges_.push_back({begin, begin + take});
      }
      out.count_ += take;
      pos += take;
    }
  }
  if (!out.ranges_.empty()) out.offset_ = out.ranges_.front().begin;
  return out;
}

std::int64_t IndexSet::global_index(std::int64_t l) const {
  assert(l >= 0 && l < count_);
  for (const IndexRange& r : ranges_) {
    if (l < r.length()) return r.begin + l;
    l -= r.length();
  }
  return -1;  // unreachable under the precondition
}

std::vector<std::int64_t> IndexSet::to_vector() const {
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(count_));
  for (const IndexRange& r : ranges_) {
    for (std::int64_t g = r.begin; g < r.end; ++g) out.push_back(g);
  }
  return out;
}

std::string to_string(const IndexSet& set) {
  if (set.empty()) return "{}";
  std::string out;
  for (const IndexRange& r : set.ranges()) {
    out += "[" + std::to_string(r.begin) + "," + std::to_string(r.end) + ")";
  }
  return out;
}

}  // namespace dtplan::placement
