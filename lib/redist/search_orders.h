#pragma once
// Orders: the shard orders of a min-cost search state's split tensor dims (search_space.h), a
// fixed-size record the search loop fills without allocating. Internal to lib/redist.
//
// Entry k (k < count) is one tensor dim, tensor_dim(k), split by length(k) mesh dims of size > 1,
// mesh_dim(k, 0) outermost. A tensor dim split only by size-1 mesh dims has length 0. Only the
// entries [0, count) and [0, length(k)) are meaningful: a default-initialised Orders leaves the
// arrays uninitialised on purpose (SearchSpace::misplaced).

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace dtplan::redist {

inline constexpr int kMaxSearchDims = 8;

struct Orders {
  int count = 0;
  std::array<std::int32_t, kMaxSearchDims> tensor_dims;
  std::array<std::uint8_t, kMaxSearchDims> lengths;
  std::array<std::array<std::uint8_t, kMaxSearchDims>, kMaxSearchDims> dims;

  [[nodiscard]] std::int32_t tensor_dim(int k) const { return tensor_dims[at(k)]; }
  [[nodiscard]] int length(int k) const { return lengths[at(k)]; }
  [[nodiscard]] std::uint8_t mesh_dim(int k, int i) const { return dims[at(k)][at(i)]; }

  // The entry of tensor dim t, or -1.
  [[nodiscard]] int find(std::int32_t t) const {
    for (int k = 0; k < count; ++k) {
      if (tensor_dims[at(k)] == t) return k;
    }
    return -1;
  }

  // A new entry for tensor dim t, of length 0; its index.
  int add(std::int32_t t) {
    const int k = count++;
    tensor_dims[at(k)] = t;
    lengths[at(k)] = 0;
    return k;
  }

  // Puts mesh dim m at position `pos` of entry k's order and counts it in the length.
  void place(int k, int pos, std::uint8_t m) {
    dims[at(k)][at(pos)] = m;
    ++lengths[at(k)];
  }

  // Sorts the entries by tensor dim ascending (an insertion sort: at most 8 entries).
  void sort_by_tensor_dim() {
    for (int i = 1; i < count; ++i) {
      for (int j = i; j > 0 && tensor_dims[at(j - 1)] > tensor_dims[at(j)]; --j) {
        std::swap(tensor_dims[at(j - 1)], tensor_dims[at(j)]);
        std::swap(lengths[at(j - 1)], lengths[at(j)]);
        std::swap(dims[at(j - 1)], dims[at(j)]);
      }
    }
  }

 private:
  static constexpr std::size_t at(int i) { return static_cast<std::size_t>(i); }
};

}  // namespace dtplan::redist
