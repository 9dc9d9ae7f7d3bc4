#pragma once
// Result<T>: a value or an Error. Library functions that can fail on input return it.
//
//   Result<int> parse_int(std::string_view s);
//   DTPLAN_TRY(int n, parse_int("42"));   // returns the error from the enclosing function
//   DTPLAN_CHECK(validate(n));            // same, for Result<void>

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/error.h"

namespace dtplan::core {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit

  [[nodiscard]] bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return check_value(), std::get<0>(state_); }
  const T& value() const& { return check_value(), std::get<0>(state_); }
  T&& value() && { return check_value(), std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& { return assert(!ok()), std::get<1>(state_); }
  Error&& error() && { return assert(!ok()), std::get<1>(std::move(state_)); }

  T value_or(T fallback) const& { return ok() ? std::get<0>(state_) : std::move(fallback); }

 private:
  void check_value() const { assert(ok() && "Result::value() on an error"); }
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit

  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const& { return assert(!ok_), error_; }
  Error&& error() && { return assert(!ok_), std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace dtplan::core

#define DTPLAN_CONCAT_INNER_(a, b) a##b
#define DTPLAN_CONCAT_(a, b) DTPLAN_CONCAT_INNER_(a, b)

// DTPLAN_TRY(decl, expr): evaluates expr (a Result); on error returns the error, else binds decl.
#define DTPLAN_TRY(decl, expr) DTPLAN_TRY_IMPL_(DTPLAN_CONCAT_(dtplan_try_, __LINE__), decl, expr)
#define DTPLAN_TRY_IMPL_(tmp, decl, expr)       \
  auto tmp = (expr);                            \
  if (!tmp.ok()) return std::move(tmp).error(); \
  decl = std::move(tmp).value()

// DTPLAN_CHECK(expr): evaluates expr (a Result of any type); on error returns the error.
#define DTPLAN_CHECK(expr)                                            \
  do {                                                                \
    auto dtplan_check_ = (expr);                                      \
    if (!dtplan_check_.ok()) return std::move(dtplan_check_).error(); \
  } while (false)
