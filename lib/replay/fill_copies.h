#pragma once
// How the GEMM timer fills a large device matrix with random values quickly: a small random tile
// is generated on the host and copied once, then the filled prefix is copied onto the rest of the
// buffer, doubling each time, so a matrix of N elements takes one host copy of at most `tile`
// elements and about log2(N / tile) device-to-device copies instead of N host random draws (a
// 16384 x 128256 logits GEMM's operands would take minutes to draw on one host thread). The values
// repeat with the tile's period, which does not change a GEMM's time (only zeros or other
// degenerate data would, through the tensor cores' power draw).
//
//   fill_copies(10, 4) = {{4, 0, 4}, {8, 0, 2}}   (tile at 0..3, then 4..7, then 8..9)

#include <cstdint>
#include <vector>

namespace dtplan::replay {

// One device-to-device copy, in elements: `count` elements from `src` to `dst`.
struct FillCopy {
  std::int64_t dst = 0;
  std::int64_t src = 0;
  std::int64_t count = 0;
  bool operator==(const FillCopy&) const = default;
};

// The copies that extend a tile of min(total, tile) elements at offset 0 to `total` elements, in
// order; each source range is already filled when it is copied. @pre total >= 0, tile >= 1.
std::vector<FillCopy> fill_copies(std::int64_t total, std::int64_t tile);

}  // namespace dtplan::replay
