#pragma once
// Deterministic fork-join over index ranges (the exact solver's eliminations, edge pricing).
//
// [0, n) is cut into `chunks` contiguous ranges whose bounds depend only on n and the chunk count;
// each range runs fn(chunk, begin, end) on its own thread (the caller's thread takes chunk 0).
// Callers write disjoint outputs per index or per chunk and join them in chunk order, so results
// are identical for every thread count.
//
// Example: parallel_chunks(2, 10, 1, fn) runs fn(0, 0, 5) and fn(1, 5, 10).

#include <cstdint>
#include <functional>

namespace dtplan::core {

// The number of chunks parallel_chunks uses: min(threads, ceil(n / min_chunk)), at least 1.
int chunk_count(int threads, std::int64_t n, std::int64_t min_chunk);

void parallel_chunks(int threads, std::int64_t n, std::int64_t min_chunk,
                     const std::function<void(int, std::int64_t, std::int64_t)>& fn);

}  // namespace dtplan::core
