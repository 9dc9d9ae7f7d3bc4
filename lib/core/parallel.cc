#include "core/parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace dtplan::core {

int chunk_count(int threads, std::int64_t n, std::int64_t min_chunk) {
  const std::int64_t by_size =
      (n + std::max<std::int64_t>(min_chunk, 1) - 1) / std::max<std::int64_t>(min_chunk, 1);
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, by_size)));
}

void parallel_chunks(int threads, std::int64_t n, std::int64_t min_chunk,
                     const std::function<void(int, std::int64_t, std::int64_t)>& fn) {
  const int chunks = chunk_count(threads, n, min_chunk);
  auto bound = [&](int c) { return n * c / chunks; };
  if (chunks == 1) {
    fn(0, 0, n);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(chunks - 1));
  for (int c = 1; c < chunks; ++c) workers.emplace_back(fn, c, bound(c), bound(c + 1));
  fn(0, 0, bound(1));
  for (auto& w : workers) w.join();
}

}  // namespace dtplan::core
