#pragma once
// Attributes: the non-tensor arguments of an op (dims, keepdim, equation, scalar operands, target
// dtype, ...) as a small typed map sorted by name. Names follow the aten schema argument names
// ("dim", "size", "dims", "keepdim", "equation", "other", "exponent", "dtype", ...), so an FX
// export maps schema arguments to attributes one to one.
//
//   Attributes a{{"dim", std::vector<std::int64_t>{2}}, {"keepdim", true}};
//   a.get_ints("dim").value() == std::vector<std::int64_t>{2};

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"

namespace dtplan::graph {

using AttrValue =
    std::variant<std::int64_t, double, bool, std::string, std::vector<std::int64_t>, core::DType>;

// The value type an attribute name must have when it is one of the names dtplan interprets.
enum class AttrType : std::uint8_t {
  kInt,
  kNumber,
  kBool,
  kString,
  kInts,
  kIntOrInts,
  kDType,
};

// The expected type of a known attribute name; nullopt for names dtplan does not interpret
// (those keep whatever JSON type they were written with).
// Example: known_attr_type("keepdim") == AttrType::kBool.
std::optional<AttrType> known_attr_type(std::string_view name);

// "integer", "number", "bool", "string", "list of integers", "integer or list of integers",
// "dtype".
std::string_view attr_type_name(AttrType type);

// The type a value holds, in the same words ("integer" for int64, "number" for double).
std::string_view attr_value_type_name(const AttrValue& value);

// True when `value` is acceptable for `type` (an integer is acceptable as a number).
bool attr_value_matches(const AttrValue& value, AttrType type);

class Attributes {
 public:
  using Entry = std::pair<std::string, AttrValue>;

  Attributes() = default;
  Attributes(std::initializer_list<Entry> entries);

  // Inserts or replaces; keeps the entries sorted by name.
  void set(std::string_view name, AttrValue value);
  [[nodiscard]] const AttrValue* find(std::string_view name) const;
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
  [[nodiscard]] std::span<const Entry> entries() const { return entries_; }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

  // Typed getters. Errors (kBadInput) read "field 'attrs'.'dim': missing" or
  // "field 'attrs'.'dim': expected an integer, got a string".
  [[nodiscard]] core::Result<std::int64_t> get_int(std::string_view name) const;
  [[nodiscard]] core::Result<std::int64_t> get_int_or(std::string_view name,
                                                      std::int64_t fallback) const;
  // An integer or a double, as double.
  [[nodiscard]] core::Result<double> get_number(std::string_view name) const;
  [[nodiscard]] core::Result<bool> get_bool_or(std::string_view name, bool fallback) const;
  [[nodiscard]] core::Result<std::string> get_string(std::string_view name) const;
  [[nodiscard]] core::Result<std::vector<std::int64_t>> get_ints(std::string_view name) const;
  // A list of integers, or one integer read as a one-element list (aten's `int[1] dim`).
  [[nodiscard]] core::Result<std::vector<std::int64_t>> get_int_list(std::string_view name) const;
  [[nodiscard]] core::Result<core::DType> get_dtype(std::string_view name) const;

  bool operator==(const Attributes&) const = default;

 private:
  std::vector<Entry> entries_;  // sorted by name, unique
};

// "field 'attrs'.'NAME'", the prefix of every attribute error.
std::string attr_field(std::string_view name);

// Compact text of a value for messages and hashing: 2, 1e-05, true, "abk,kn->abn", [0,1], bf16.
std::string format_attr_value(const AttrValue& value);

}  // namespace dtplan::graph
