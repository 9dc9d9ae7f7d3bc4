#include "number_arg.h"

#include <charconv>
#include <cmath>

#include "core/strings.h"

namespace dtplan::cli {

namespace {

// The text without surrounding whitespace and a leading '+'.
std::string_view plain(std::string_view text) {
  std::string_view t = core::trim(text);
  if (t.size() > 1 && t.front() == '+' && t[1] != '-') t.remove_prefix(1);
  return t;
}

std::string in_quotes(const std::string& text) { return "'" + core::escape_controls(text) + "'"; }

template <class Int>
std::string range_text(Int lo, Int hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

// Parses all of `t` as an Int; "" when it fits in [lo, hi], else the reason.
template <class Int>
std::string check_integer(std::string& text, Int lo, Int hi) {
  const std::string_view t = plain(text);
  Int value{};
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  const bool digits_only = !t.empty() && end == t.data() + t.size();
  if (ec == std::errc::invalid_argument || !digits_only) {
    // "-5" for an unsigned type is a number, only out of range.
    const bool negative_number = std::is_unsigned_v<Int> && t.size() > 1 && t.front() == '-' &&
                                 t.find_first_not_of("0123456789", 1) == std::string_view::npos;
    if (!negative_number) return in_quotes(text) + " is not an integer";
    ec = std::errc::result_out_of_range;
  }
  if (ec == std::errc::result_out_of_range || value < lo || value > hi) {
    return in_quotes(text) + " is not in " + range_text(lo, hi);
  }
  text = std::string(t);
  return "";
}

}  // namespace

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator([lo, hi](std::string& text) { return check_integer(text, lo, hi); }, "",
                        "INTEGER");
}

CLI::Validator unsigned_in(std::uint64_t hi) {
  return CLI::Validator(
      [hi](std::string& text) { return check_integer(text, std::uint64_t{0}, hi); }, "",
      "UNSIGNED");
}

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string_view t = plain(text);
        double value = 0;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
        if (t.empty() || ec == std::errc::invalid_argument || end != t.data() + t.size()) {
          return in_quotes(text) + " is not a number";
        }
        if (ec == std::errc::result_out_of_range) {
          return in_quotes(text) + " is out of the range of a double";
        }
        if (!std::isfinite(value)) return in_quotes(text) + " is not a finite number";
        text = std::string(t);
        return "";
      },
      "", "NUMBER");
}

}  // namespace dtplan::cli
