#include "sim/storage_cache.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>

namespace dtplan::sim {
namespace {

TEST_CASE("storage cache: large blocks are reused, small ones bypass it") {
  if (!kStorageCacheEnabled) {  // AddressSanitizer build: blocks go straight back
    { StorageBlock b = allocate_storage(100000); }
    CHECK(cached_storage_bytes() == 0);
    return;
  }
  release_cached_storage();
  CHECK(cached_storage_bytes() == 0);
  std::byte* first = nullptr;
  {
    StorageBlock b = allocate_storage(100000);  // rounded up to whole pages: 102400
    first = b.get();
    CHECK(reinterpret_cast<std::uintptr_t>(first) % 64 == 0);
    std::memset(first, 1, 100000);
  }
  CHECK(cached_storage_bytes() == 102400);
  {
    StorageBlock again = allocate_storage(100001);  // the same rounded size: the cached block
    CHECK(again.get() == first);
    CHECK(cached_storage_bytes() == 0);
    StorageBlock other = allocate_storage(200000);  // another size: a new block
    CHECK(other.get() != first);
  }
  CHECK(cached_storage_bytes() == 102400 + 200704);
  {
    StorageBlock small = allocate_storage(100);
    StorageBlock empty = allocate_storage(0);
    CHECK(small.get() != nullptr);
    CHECK(empty.get() != nullptr);
  }
  CHECK(cached_storage_bytes() == 102400 + 200704);  // small blocks are not cached
  release_cached_storage();
  CHECK(cached_storage_bytes() == 0);
}

}  // namespace
}  // namespace dtplan::sim
