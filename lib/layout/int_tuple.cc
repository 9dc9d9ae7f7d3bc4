#include "layout/int_tuple.h"

#include <cassert>

namespace dtplan::layout {

IntTuple IntTuple::tuple(std::vector<IntTuple> elements) {
  IntTuple t;
  t.leaf_ = false;
  t.elements_ = std::move(elements);
  return t;
}

std::int64_t IntTuple::value() const {
  assert(leaf_);
  return value_;
}

const std::vector<IntTuple>& IntTuple::elements() const {
  assert(!leaf_);
  return elements_;
}

namespace {
void flatten_into(const IntTuple& t, std::vector<std::int64_t>& out) {
  if (t.is_leaf()) {
    out.push_back(t.value());
    return;
  }
  for (const auto& e : t.elements()) flatten_into(e, out);
}

IntTuple suffix_product_from(const IntTuple& t, std::int64_t& acc) {
  if (t.is_leaf()) {
    std::int64_t stride = acc;
    acc *= t.value();
    return stride;
  }
  const auto& elems = t.elements();
  std::vector<IntTuple> out(elems.size(), IntTuple(0));
  for (std::size_t i = elems.size(); i-- > 0;) out[i] = suffix_product_from(elems[i], acc);
  return IntTuple::tuple(std::move(out));
}
}  // namespace

std::vector<std::int64_t> flatten(const IntTuple& t) {
  std::vector<std::int64_t> out;
  flatten_into(t, out);
  return out;
}

std::int64_t product(const IntTuple& t) {
  if (t.is_leaf()) return t.value();
  std::int64_t p = 1;
  for (const auto& e : t.elements()) p *= product(e);
  return p;
}

bool congruent(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.elements().size() != b.elements().size()) return false;
  for (std::size_t i = 0; i < a.elements().size(); ++i) {
    if (!congruent(a.elements()[i], b.elements()[i])) return false;
  }
  return true;
}

IntTuple suffix_product(const IntTuple& t) {
  std::int64_t acc = 1;
  return suffix_product_from(t, acc);
}

std::string to_string(const IntTuple& t) {
  if (t.is_leaf()) return std::to_string(t.value());
  std::string out = "(";
  for (std::size_t i = 0; i < t.elements().size(); ++i) {
    if (i > 0) out += ',';
    out += to_string(t.elements()[i]);
  }
  return out + ")";
}

}  // namespace dtplan::layout
