#include "core/parallel.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace dtplan::core {
namespace {

TEST_CASE("parallel: chunk counts and ranges depend on n and the chunk count only") {
  CHECK(chunk_count(2, 10, 1) == 2);
  CHECK(chunk_count(4, 10, 4) == 3);  // ceil(10 / 4)
  CHECK(chunk_count(8, 0, 1) == 1);
  CHECK(chunk_count(0, 100, 1) == 1);
  // parallel_chunks(2, 10, 1, fn) runs fn(0, 0, 5) and fn(1, 5, 10); every index once.
  std::vector<std::int64_t> begin(3, -1), end(3, -1);
  std::vector<int> seen(10, 0);
  parallel_chunks(2, 10, 1, [&](int c, std::int64_t b, std::int64_t e) {
    begin[static_cast<std::size_t>(c)] = b;
    end[static_cast<std::size_t>(c)] = e;
    for (std::int64_t i = b; i < e; ++i) ++seen[static_cast<std::size_t>(i)];
  });
  CHECK(begin == std::vector<std::int64_t>{0, 5, -1});
  CHECK(end == std::vector<std::int64_t>{5, 10, -1});
  CHECK(seen == std::vector<int>(10, 1));
}

}  // namespace
}  // namespace dtplan::core
