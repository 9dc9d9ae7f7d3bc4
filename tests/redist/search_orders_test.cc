#include "redist/search_orders.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace dtplan::redist {
namespace {

// Entry k as {tensor dim, mesh dims in order...}.
std::vector<int> entry(const Orders& o, int k) {
  std::vector<int> out{o.tensor_dim(k)};
  for (int i = 0; i < o.length(k); ++i) out.push_back(o.mesh_dim(k, i));
  return out;
}

TEST_CASE("search orders: entries are added, found and filled at their positions") {
  Orders o;
  CHECK(o.find(0) == -1);
  const int a = o.add(2);
  const int b = o.add(0);
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(o.count == 2);
  CHECK(o.find(0) == 1);
  CHECK(o.find(2) == 0);
  CHECK(o.find(1) == -1);
  o.place(a, 1, 3);  // positions need not arrive in order
  o.place(a, 0, 5);
  o.place(b, 0, 1);
  CHECK(entry(o, a) == std::vector<int>{2, 5, 3});
  CHECK(entry(o, b) == std::vector<int>{0, 1});
}

TEST_CASE("search orders: sorting by tensor dim carries each entry's order along") {
  Orders o;
  for (std::int32_t t : {3, 1, 2, 0}) {
    const int k = o.add(t);
    for (int i = 0; i < t; ++i) o.place(k, i, static_cast<std::uint8_t>(t * 10 + i));
  }
  o.sort_by_tensor_dim();
  REQUIRE(o.count == 4);
  CHECK(entry(o, 0) == std::vector<int>{0});
  CHECK(entry(o, 1) == std::vector<int>{1, 10});
  CHECK(entry(o, 2) == std::vector<int>{2, 20, 21});
  CHECK(entry(o, 3) == std::vector<int>{3, 30, 31, 32});
  CHECK(o.find(2) == 2);
}

TEST_CASE("search orders: a tensor dim split only by size-1 mesh dims has length 0") {
  Orders o;
  const int k = o.add(1);
  CHECK(o.length(k) == 0);
  CHECK(entry(o, k) == std::vector<int>{1});
}

}  // namespace
}  // namespace dtplan::redist
