#pragma once
// Numeric flags (`--threads 8`, `--time-limit 1.5`, `--seed 7`). CLI11 converts a flag's text to
// its C++ type itself, with two-line messages of its own and, for unsigned types, a negative
// number wrapped around. A numeric flag is therefore added with add_number_option, which checks
// the text first, strictly: a decimal integer (optional sign) that fits the target type, or a
// finite decimal number. A failure reads "'x' is not an integer", "'2147483648' is not in
// [-2147483648, 2147483647]" or "'abc' is not a number", and main.cc reports it as
// "dtplan <command>: error: --threads: 'x' is not an integer" (exit 2).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace dtplan::cli {

// Accepts a decimal integer in [lo, hi] and rewrites the text to its plain form ("+7 " -> "7").
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);

// Accepts a decimal integer in [0, hi] (for unsigned 64-bit targets).
CLI::Validator unsigned_in(std::uint64_t hi);

// Accepts a finite decimal number ("1e-4", "60", "0.5").
CLI::Validator finite_number();

namespace detail {
template <class T>
struct Unwrapped {
  using type = T;
};
template <class T>
struct Unwrapped<std::optional<T>> {
  using type = T;
};
}  // namespace detail

// The check for a flag of type T (or std::optional<T>): its whole range.
template <class T>
CLI::Validator number_check() {
  using V = typename detail::Unwrapped<T>::type;
  static_assert(std::is_arithmetic_v<V> && !std::is_same_v<V, bool>, "a numeric flag");
  if constexpr (std::is_floating_point_v<V>) {
    return finite_number();
  } else if constexpr (std::is_unsigned_v<V>) {
    return unsigned_in(std::numeric_limits<V>::max());
  } else {
    return integer_in(std::numeric_limits<V>::min(), std::numeric_limits<V>::max());
  }
}

// app.add_option(name, target, help) with number_check<T>() on its text.
template <class T>
CLI::Option* add_number_option(CLI::App& app, const std::string& name, T& target,
                               const std::string& help) {
  return app.add_option(name, target, help)->transform(number_check<T>());
}

}  // namespace dtplan::cli
