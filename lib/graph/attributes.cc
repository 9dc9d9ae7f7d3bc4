#include "graph/attributes.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "core/strings.h"

namespace dtplan::graph {
namespace {

using core::Error;
using core::Result;

struct KnownAttr {
  std::string_view name;
  AttrType type;
};

// Sorted by name (binary search).
constexpr std::array kKnownAttrs = {
    KnownAttr{"alpha", AttrType::kNumber},       KnownAttr{"compute_log_sumexp", AttrType::kBool},
    KnownAttr{"dim", AttrType::kIntOrInts},      KnownAttr{"dim0", AttrType::kInt},
    KnownAttr{"dim1", AttrType::kInt},           KnownAttr{"dims", AttrType::kInts},
    KnownAttr{"dropout_p", AttrType::kNumber},   KnownAttr{"dtype", AttrType::kDType},
    KnownAttr{"end", AttrType::kNumber},         KnownAttr{"eps", AttrType::kNumber},
    KnownAttr{"equation", AttrType::kString},    KnownAttr{"exponent", AttrType::kNumber},
    KnownAttr{"fill_value", AttrType::kNumber},  KnownAttr{"float8", AttrType::kBool},
    KnownAttr{"half_to_float", AttrType::kBool}, KnownAttr{"index", AttrType::kInt},
    KnownAttr{"input_dtype", AttrType::kDType},  KnownAttr{"is_causal", AttrType::kBool},
    KnownAttr{"keepdim", AttrType::kBool},       KnownAttr{"normalized_shape", AttrType::kInts},
    KnownAttr{"num_weights", AttrType::kInt},    KnownAttr{"other", AttrType::kNumber},
    KnownAttr{"padding_idx", AttrType::kInt},    KnownAttr{"rounding_mode", AttrType::kString},
    KnownAttr{"scale", AttrType::kNumber},       KnownAttr{"scale_grad_by_freq", AttrType::kBool},
    KnownAttr{"self", AttrType::kNumber},        KnownAttr{"size", AttrType::kInts},
    KnownAttr{"split_size", AttrType::kInt},     KnownAttr{"split_sizes", AttrType::kInts},
    KnownAttr{"start", AttrType::kNumber},       KnownAttr{"step", AttrType::kNumber},
};

constexpr bool known_attrs_sorted() {
  for (std::size_t i = 1; i < kKnownAttrs.size(); ++i) {
    if (!(kKnownAttrs[i - 1].name < kKnownAttrs[i].name)) return false;
  }
  return true;
}
static_assert(known_attrs_sorted());

Error type_error(std::string_view name, AttrType want, const AttrValue& got) {
  std::string_view article = want == AttrType::kInt ? "an " : "a ";
  return Error::bad_input(attr_field(name) + ": expected " + std::string(article) +
                          std::string(attr_type_name(want)) + ", got " +
                          std::string(attr_value_type_name(got)) + " " + format_attr_value(got));
}

Error missing(std::string_view name) { return Error::bad_input(attr_field(name) + ": missing"); }

}  // namespace

std::optional<AttrType> known_attr_type(std::string_view name) {
  auto it = std::lower_bound(kKnownAttrs.begin(), kKnownAttrs.end(), name,
                             [](const KnownAttr& a, std::string_view n) { return a.name < n; });
  if (it != kKnownAttrs.end() && it->name == name) return it->type;
  return std::nullopt;
}

std::string_view attr_type_name(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return "integer";
    case AttrType::kNumber:
      return "number";
    case AttrType::kBool:
      return "bool";
    case AttrType::kString:
      return "string";
    case AttrType::kInts:
      return "list of integers";
    case AttrType::kIntOrInts:
      return "integer or list of integers";
    case AttrType::kDType:
      return "dtype";
  }
  return "?";
}

std::string_view attr_value_type_name(const AttrValue& value) {
  switch (value.index()) {
    case 0:
      return "integer";
    case 1:
      return "number";
    case 2:
      return "bool";
    case 3:
      return "string";
    case 4:
      return "list of integers";
    default:
      return "dtype";
  }
}

bool attr_value_matches(const AttrValue& value, AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return std::holds_alternative<std::int64_t>(value);
    case AttrType::kNumber:
      return std::holds_alternative<std::int64_t>(value) || std::holds_alternative<double>(value);
    case AttrType::kBool:
      return std::holds_alternative<bool>(value);
    case AttrType::kString:
      return std::holds_alternative<std::string>(value);
    case AttrType::kInts:
      return std::holds_alternative<std::vector<std::int64_t>>(value);
    case AttrType::kIntOrInts:
      return std::holds_alternative<std::int64_t>(value) ||
             std::holds_alternative<std::vector<std::int64_t>>(value);
    case AttrType::kDType:
      return std::holds_alternative<core::DType>(value);
  }
  return false;
}

Attributes::Attributes(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) set(e.first, e.second);
}

void Attributes::set(std::string_view name, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    entries_.insert(it, Entry{std::string(name), std::move(value)});
  }
}

const AttrValue* Attributes::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) return &it->second;
  return nullptr;
}

Result<std::int64_t> Attributes::get_int(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return missing(name);
  if (const auto* i = std::get_if<std::int64_t>(v)) return *i;
  return type_error(name, AttrType::kInt, *v);
}

Result<std::int64_t> Attributes::get_int_or(std::string_view name, std::int64_t fallback) const {
  if (!contains(name)) return fallback;
  return get_int(name);
}

Result<double> Attributes::get_number(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return missing(name);
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return type_error(name, AttrType::kNumber, *v);
}

Result<bool> Attributes::get_bool_or(std::string_view name, bool fallback) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return fallback;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  return type_error(name, AttrType::kBool, *v);
}

Result<std::string> Attributes::get_string(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return missing(name);
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return type_error(name, AttrType::kString, *v);
}

Result<std::vector<std::int64_t>> Attributes::get_ints(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return missing(name);
  if (const auto* l = std::get_if<std::vector<std::int64_t>>(v)) return *l;
  return type_error(name, AttrType::kInts, *v);
}

Result<std::vector<std::int64_t>> Attributes::get_int_list(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return missing(name);
  if (const auto* i = std::get_if<std::int64_t>(v)) return std::vector<std::int64_t>{*i};
  if (const auto* l = std::get_if<std::vector<std::int64_t>>(v)) return *l;
  return type_error(name, AttrType::kIntOrInts, *v);
}

Result<core::DType> Attributes::get_dtype(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v == nullptr) return missing(name);
  if (const auto* d = std::get_if<core::DType>(v)) return *d;
  return type_error(name, AttrType::kDType, *v);
}

std::string attr_field(std::string_view name) {
  return "field 'attrs'.'" + std::string(name) + "'";
}

std::string format_attr_value(const AttrValue& value) {
  struct Visitor {
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      // Shortest text that reads back to the same double (std::to_chars round-trip form).
      std::array<char, 32> buf{};
      auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), d);
      return std::string(buf.data(), end);
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const std::vector<std::int64_t>& l) const {
      return core::format_int_list(l);
    }
    std::string operator()(core::DType d) const { return std::string(core::dtype_name(d)); }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace dtplan::graph
