#include "core/units.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/checked.h"
#include "core/limits.h"
#include "core/strings.h"

namespace dtplan::core {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<std::int64_t> suffix_multiplier(std::string_view suffix, std::string_view text,
                                       std::string_view what) {
  static const std::array<std::pair<const char*, std::int64_t>, 15> kSuffixes = {{
      {"", 1},
      {"b", 1},
      {"k", 1LL << 10},
      {"kib", 1LL << 10},
      {"m", 1LL << 20},
      {"mib", 1LL << 20},
      {"g", 1LL << 30},
      {"gib", 1LL << 30},
      {"t", 1LL << 40},
      {"tib", 1LL << 40},
      {"kb", 1000LL},
      {"mb", 1000LL * 1000},
      {"gb", 1000LL * 1000 * 1000},
      {"tb", 1000LL * 1000 * 1000 * 1000},
      {"bytes", 1},
  }};
  std::string s = lower(suffix);
  for (const auto& [name, mult] : kSuffixes) {
    if (s == name) return mult;
  }
  return Error::bad_input(std::string(what) + ": '" + std::string(text) +
                          "' has an unknown size suffix '" + std::string(suffix) +
                          "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
}

}  // namespace

Result<std::int64_t> parse_size(std::string_view text, std::string_view what) {
  std::string_view t = trim(text);
  std::size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) {
    if (!t.empty() && t.front() == '-') {
      return Error::bad_input(std::string(what) + ": '" + std::string(text) +
                              "' is negative; sizes must be >= 0");
    }
    return Error::bad_input(std::string(what) + ": '" + std::string(text) + "' is not a size");
  }
  DTPLAN_TRY(std::int64_t number, parse_int(t.substr(0, digits), what));
  DTPLAN_TRY(std::int64_t mult, suffix_multiplier(trim(t.substr(digits)), text, what));
  return checked_mul(number, mult, std::string(what) + " '" + std::string(text) + "'");
}

Result<std::optional<std::int64_t>> parse_memory_limit(std::string_view text,
                                                       std::string_view what) {
  if (trim(text) == "none") return std::optional<std::int64_t>();
  DTPLAN_TRY(std::int64_t bytes, parse_size(text, what));
  if (bytes < 1) {
    return Error::bad_input(std::string(what) + ": '" + std::string(text) +
                            "' is not a positive size or none");
  }
  return std::optional<std::int64_t>(bytes);
}

Result<std::vector<std::int64_t>> parse_size_range(std::string_view text, std::string_view what) {
  std::vector<std::string_view> parts = split(text, ':');
  if (parts.size() == 1) {
    DTPLAN_TRY(std::int64_t only, parse_size(parts[0], what));
    return std::vector<std::int64_t>{only};
  }
  if (parts.size() != 3) {
    return Error::bad_input(std::string(what) + ": '" + std::string(text) +
                            "' is not SIZE or MIN:MAX:xFACTOR or MIN:MAX:+STEP");
  }
  DTPLAN_TRY(std::int64_t lo, parse_size(parts[0], what));
  DTPLAN_TRY(std::int64_t hi, parse_size(parts[1], what));
  std::string_view step = trim(parts[2]);
  if (lo > hi) {
    return Error::bad_input(std::string(what) + ": '" + std::string(text) +
                            "' has MIN larger than MAX");
  }
  if (step.size() < 2 || (step[0] != 'x' && step[0] != '+')) {
    return Error::bad_input(std::string(what) + ": step '" + std::string(step) +
                            "' must be xFACTOR or +INCREMENT");
  }
  DTPLAN_TRY(std::int64_t amount, parse_size(step.substr(1), what));
  bool geometric = step[0] == 'x';
  if ((geometric && amount < 2) || (!geometric && amount < 1) || (geometric && lo == 0)) {
    return Error::bad_input(std::string(what) + ": step '" + std::string(step) +
                            "' does not advance from " + std::to_string(lo));
  }
  constexpr std::size_t kMaxPoints = kMaxSweepPoints;
  std::vector<std::int64_t> out;
  for (std::int64_t v = lo; v <= hi;) {
    out.push_back(v);
    if (out.size() > kMaxPoints) {
      return Error::bad_input(std::string(what) + ": '" + std::string(text) + "' has more than " +
                              std::to_string(kMaxPoints) + " points" +
                              limit_note("kMaxSweepPoints"));
    }
    std::int64_t next = 0;
    bool overflow = geometric ? __builtin_mul_overflow(v, amount, &next)
                              : __builtin_add_overflow(v, amount, &next);
    if (overflow) break;
    v = next;
  }
  return out;
}

std::string format_size(std::int64_t bytes) {
  static const std::array<const char*, 4> kUnits = {"TiB", "GiB", "MiB", "KiB"};
  for (std::size_t i = 0; i < kUnits.size(); ++i) {
    std::int64_t unit = 1LL << (10 * (kUnits.size() - i));
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + kUnits[i];
  }
  return std::to_string(bytes) + "B";
}

std::string format_fixed(double value, int digits) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : (value < 0 ? "-inf" : "nan");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  std::string out(buf);
  if (out.find_first_not_of("-0.") == std::string::npos && out.front() == '-') out.erase(0, 1);
  return out;
}

}  // namespace dtplan::core
