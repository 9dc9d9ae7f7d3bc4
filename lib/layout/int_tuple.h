#pragma once
// IntTuple: an integer or a (nested) tuple of IntTuples, the shape and stride trees of a CuTe-style
// layout. `((7,(5,3)),2)` is a tuple of two elements: the tuple `(7,(5,3))` and the integer 2.
// Flattening reads the leaves left to right; products and row-major strides follow the nesting.

#include <cstdint>
#include <string>
#include <vector>

namespace dtplan::layout {

class IntTuple {
 public:
  // A leaf. Implicit so that `IntTuple t = 4;` and `IntTuple::tuple({2, 4})` read naturally.
  IntTuple(std::int64_t value) : value_(value) {}  // NOLINT: implicit
  // A tuple of the given elements (possibly empty: `()`).
  static IntTuple tuple(std::vector<IntTuple> elements);

  [[nodiscard]] bool is_leaf() const { return leaf_; }
  // @pre is_leaf().
  [[nodiscard]] std::int64_t value() const;
  // @pre !is_leaf().
  [[nodiscard]] const std::vector<IntTuple>& elements() const;
  // Number of top-level elements; a leaf counts as one (pycute's rank of an int).
  [[nodiscard]] std::size_t rank() const { return leaf_ ? 1 : elements_.size(); }

  bool operator==(const IntTuple&) const = default;

 private:
  IntTuple() = default;
  std::int64_t value_ = 0;
  std::vector<IntTuple> elements_;
  bool leaf_ = true;
};

// Leaves left to right. Example: flatten(((7,(5,3)),2)) == {7,5,3,2}.
std::vector<std::int64_t> flatten(const IntTuple& t);

// Product of all leaves; an empty tuple gives 1. Example: product(((2,3),4)) == 24.
// @pre the product fits in int64 (Layout::make checks this for layouts built from input).
std::int64_t product(const IntTuple& t);

// True when both are leaves, or both are tuples of equal length whose elements match pairwise
// (pycute's match_structure). Example: congruent((2,(3,4)), (8,(4,1))) but not ((2,3), 6).
bool congruent(const IntTuple& a, const IntTuple& b);

// Row-major (exclusive suffix product) strides with the nesting of `t`: scan right to left with an
// accumulator starting at 1; each element receives the accumulator (recursively), then the
// accumulator is multiplied by the element's product.
// Examples: (2,4) -> (4,1); (2,2,2) -> (4,2,1); ((2,3),4) -> ((12,4),1); 5 -> 1.
// @post congruent(t, result) and, for a flat t, result[i] == product of t[i+1..].
IntTuple suffix_product(const IntTuple& t);

// The text form: leaves as decimal, tuples as `(a,b,...)`. Example: "((7,(5,3)),2)", "()".
std::string to_string(const IntTuple& t);

}  // namespace dtplan::layout
