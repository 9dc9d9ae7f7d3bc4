#include "sim/storage_cache.h"

#include <map>
#include <mutex>
#include <new>
#include <vector>

namespace dtplan::sim {

namespace {

constexpr std::align_val_t kAlign{64};
constexpr std::size_t kGranule = 4096;  // cached sizes are rounded up to whole pages

struct Cache {
  std::mutex mutex;
  std::map<std::size_t, std::vector<std::byte*>> free;  // by (rounded) size
  std::size_t bytes = 0;
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: blocks may be freed during static teardown
  return *c;
}

std::size_t rounded(std::size_t bytes) {
  if (bytes < kStorageCacheMinBytes) return bytes == 0 ? 1 : bytes;
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

}  // namespace

void StorageDeleter::operator()(std::byte* p) const noexcept {
  if (p == nullptr) return;
  if (kStorageCacheEnabled && bytes >= kStorageCacheMinBytes) {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.bytes + bytes <= kStorageCacheBytes) {
      c.free[bytes].push_back(p);
      c.bytes += bytes;
      return;
    }
  }
  ::operator delete(p, bytes, kAlign);
}

StorageBlock allocate_storage(std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  if (size >= kStorageCacheMinBytes) {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free.find(size);
    if (it != c.free.end() && !it->second.empty()) {
      std::byte* p = it->second.back();
      it->second.pop_back();
      c.bytes -= size;
      return StorageBlock(p, StorageDeleter{size});
    }
  }
  return StorageBlock(static_cast<std::byte*>(::operator new(size, kAlign)), StorageDeleter{size});
}

std::size_t cached_storage_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}

void release_cached_storage() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto& [size, blocks] : c.free) {
    for (std::byte* p : blocks) ::operator delete(p, size, kAlign);
  }
  c.free.clear();
  c.bytes = 0;
}

}  // namespace dtplan::sim
