#include "strategy/pinned_labels.h"

#include <algorithm>

namespace dtplan::strategy {

std::optional<std::vector<std::vector<std::int32_t>>> pinned_labels(
    const std::vector<std::vector<char>>& allowed, std::span<const solve::RepeatGroup> repeats) {
  for (const auto& a : allowed) {
    if (std::find(a.begin(), a.end(), 1) == a.end()) return std::nullopt;
  }
  // Per node, the strategies kept: its own allowed ones, or at a repeat position the union over
  // the blocks (one vector per position, shared by its blocks).
  std::vector<const std::vector<char>*> keep(allowed.size());
  for (std::size_t v = 0; v < allowed.size(); ++v) keep[v] = &allowed[v];
  std::vector<std::vector<char>> unions;
  for (const solve::RepeatGroup& r : repeats) {
    for (std::size_t pos = 0; !r.blocks.empty() && pos < r.blocks[0].size(); ++pos) {
      std::vector<char> any(allowed[static_cast<std::size_t>(r.blocks[0][pos])].size(), 0);
      for (const auto& block : r.blocks) {
        const auto& a = allowed[static_cast<std::size_t>(block[pos])];
        if (a.size() != any.size()) return std::nullopt;
        for (std::size_t l = 0; l < a.size(); ++l) any[l] = static_cast<char>(any[l] | a[l]);
      }
      unions.push_back(std::move(any));
    }
  }
  std::size_t next = 0;
  for (const solve::RepeatGroup& r : repeats) {
    for (std::size_t pos = 0; !r.blocks.empty() && pos < r.blocks[0].size(); ++pos, ++next) {
      for (const auto& block : r.blocks) keep[static_cast<std::size_t>(block[pos])] = &unions[next];
    }
  }
  std::vector<std::vector<std::int32_t>> out(allowed.size());
  for (std::size_t v = 0; v < keep.size(); ++v) {
    const std::vector<char>& k = *keep[v];
    if (std::find(k.begin(), k.end(), 0) == k.end()) continue;
    for (std::size_t l = 0; l < k.size(); ++l) {
      if (k[l] != 0) out[v].push_back(static_cast<std::int32_t>(l));
    }
  }
  return out;
}

}  // namespace dtplan::strategy
