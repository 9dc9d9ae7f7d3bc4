#include "replay/fill_copies.h"

#include <algorithm>

namespace dtplan::replay {

std::vector<FillCopy> fill_copies(std::int64_t total, std::int64_t tile) {
  std::vector<FillCopy> copies;
  std::int64_t filled = std::min(total, tile);
  while (filled < total) {
    const std::int64_t count = std::min(filled, total - filled);
    copies.push_back({.dst = filled, .src = 0, .count = count});
    filled += count;
  }
  return copies;
}

}  // namespace dtplan::replay
