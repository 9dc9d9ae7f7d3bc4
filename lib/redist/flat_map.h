#pragma once
// FlatMap: an open-addressing hash map (linear probing, power-of-two capacity, at most half full)
// for the planners' hot tables: search states and memoised step costs. clear() is O(1) (a
// generation stamp marks live slots), so a table reused across plans keeps its memory and never
// reallocates once it is large enough. No erase. Iteration order is never used for output.

#include <cstdint>
#include <utility>
#include <vector>

namespace dtplan::redist {

// Hash must be a callable K -> std::uint64_t with well-mixed low bits (core::mix64 gives them).
template <class K, class V, class Hash>
class FlatMap {
 public:
  explicit FlatMap(std::size_t log2_capacity = 8) {
    slots_.resize(std::size_t{1} << log2_capacity);
  }

  // The value for `key`, or nullptr.
  V* find(const K& key) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Hash{}(key)&mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.stamp != stamp_) return nullptr;
      if (s.key == key) return &s.value;
    }
  }

  // Inserts `value` unless `key` is present; returns the stored value and whether it was added.
  std::pair<V*, bool> insert(const K& key, const V& value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Hash{}(key)&mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.stamp != stamp_) {
        s = {key, value, stamp_};
        ++size_;
        return {&s.value, true};
      }
      if (s.key == key) return {&s.value, false};
    }
  }

  void clear() {
    size_ = 0;
    if (++stamp_ == 0) {  // the stamp wrapped: really empty every slot
      for (Slot& s : slots_) s.stamp = 0;
      stamp_ = 1;
    }
  }

  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  struct Slot {
    K key{};
    V value{};
    std::uint32_t stamp = 0;
  };

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.size() * 2);
    mask_ = slots_.size() - 1;
    const std::uint32_t live = stamp_;
    stamp_ = 1;
    size_ = 0;
    for (Slot& s : old) {
      if (s.stamp == live) insert(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;  // slots_.size() - 1
  std::size_t size_ = 0;
  std::uint32_t stamp_ = 1;
};

}  // namespace dtplan::redist
