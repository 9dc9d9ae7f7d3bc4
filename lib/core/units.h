#pragma once
// Byte sizes in the text syntax of DESIGN.md and their formatting.
//
// Accepted: a plain integer ("4096"), binary suffixes K/KiB, M/MiB, G/GiB, T/TiB (x1024^n, as
// nccl-tests reads -b/-e), and decimal suffixes KB, MB, GB, TB (x1000^n). Case-insensitive suffix,
// optional "B" for plain bytes ("512B").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace dtplan::core {

// Example: parse_size("8MiB", "--memory-limit") == 8388608.
// @post error when the text is not a size, is negative, or overflows int64.
Result<std::int64_t> parse_size(std::string_view text, std::string_view what);

// A per-rank memory limit (`--memory-limit` of plan and sweep): a positive size, or "none" for no
// limit (nullopt). Example: parse_memory_limit("80GiB", "--memory-limit") == 85899345920.
// @post error (kBadInput) when the text is neither, e.g. "0": "--memory-limit: '0' is not a
// positive size or none".
Result<std::optional<std::int64_t>> parse_memory_limit(std::string_view text,
                                                       std::string_view what);

// A geometric size sweep "MIN:MAX:xF" (factor) or "MIN:MAX:+STEP" (increment), both ends
// included, like nccl-tests -b/-e/-f/-i. A single size is a one-element sweep.
// Example: parse_size_range("8:64:x2", "--sizes") == {8, 16, 32, 64}.
Result<std::vector<std::int64_t>> parse_size_range(std::string_view text, std::string_view what);

// Shortest exact binary form: 8388608 -> "8MiB", 1000 -> "1000B", 1536 -> "1536B".
std::string format_size(std::int64_t bytes);

// Fixed-point decimal with `digits` fraction digits, e.g. format_fixed(25.2049, 2) == "25.20".
std::string format_fixed(double value, int digits);

}  // namespace dtplan::core
