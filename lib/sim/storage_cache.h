#pragma once
// The allocator of tensor storage: 64-byte aligned blocks, with a process-wide cache that keeps
// freed blocks of 64 KiB and more (up to kStorageCacheBytes in all) for reuse. The simulator
// frees each collective's inputs and allocates its outputs of the same few sizes over and over;
// without the cache every output would be fresh memory from the OS, whose first touch (a page
// fault per 4 KiB) costs more than the collective's own copying. Thread-safe.
//
//   StorageBlock b = allocate_storage(1 << 20);  // may reuse a cached 1 MiB block
//   // ... b.get() ...; the block returns to the cache when b is destroyed

#include <cstddef>
#include <cstdint>
#include <memory>

namespace dtplan::sim {

// Under AddressSanitizer nothing is cached, so that it still sees every use after free.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kStorageCacheEnabled = false;
#else
inline constexpr bool kStorageCacheEnabled = true;
#endif

// Blocks smaller than this bypass the cache.
inline constexpr std::size_t kStorageCacheMinBytes = std::size_t{64} << 10;
// The most bytes the cache holds; a freed block that would exceed it goes back to the system.
inline constexpr std::size_t kStorageCacheBytes = std::size_t{1} << 30;

// Returns a block to the cache (or the system). Holds the block's size.
struct StorageDeleter {
  std::size_t bytes = 0;
  void operator()(std::byte* p) const noexcept;
};

using StorageBlock = std::unique_ptr<std::byte, StorageDeleter>;

// An uninitialised block of at least `bytes` bytes (at least 1), 64-byte aligned.
// @post throws std::bad_alloc when the system has no memory for it.
StorageBlock allocate_storage(std::size_t bytes);

// Bytes the cache holds now (for tests and reports).
std::size_t cached_storage_bytes();

// Returns every cached block to the system.
void release_cached_storage();

}  // namespace dtplan::sim
