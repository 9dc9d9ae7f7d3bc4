#pragma once
// RankMap: a mesh's rank map (row-major), immutable and shared between its copies. Every
// redistribution of a plan describes its mesh (RedistPlan::mesh), and a 126-layer plan on 8,192
// ranks holds thousands of them: copying a 64 KiB list into each was most of lowering's time
// and memory. A copy of a RankMap shares the one list; equality compares the ranks.
//
//   RankMap r = std::vector<std::int64_t>{4, 5, 6, 7};
//   RankMap s = r;  // shares r's list; s == r, s[1] == 5

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace dtplan::redist {

class RankMap {
 public:
  RankMap() = default;
  RankMap(std::vector<std::int64_t> ranks)  // NOLINT(google-explicit-constructor): a list
      : ranks_(std::make_shared<const std::vector<std::int64_t>>(std::move(ranks))) {}
  RankMap(std::initializer_list<std::int64_t> ranks) : RankMap(std::vector<std::int64_t>(ranks)) {}

  [[nodiscard]] const std::vector<std::int64_t>& values() const {
    static const std::vector<std::int64_t> kNone;
    return ranks_ ? *ranks_ : kNone;
  }
  [[nodiscard]] std::size_t size() const { return values().size(); }
  [[nodiscard]] bool empty() const { return values().empty(); }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const { return values()[i]; }
  [[nodiscard]] auto begin() const { return values().begin(); }
  [[nodiscard]] auto end() const { return values().end(); }

  bool operator==(const RankMap& other) const {
    return ranks_ == other.ranks_ || values() == other.values();
  }

 private:
  std::shared_ptr<const std::vector<std::int64_t>> ranks_;
};

}  // namespace dtplan::redist
