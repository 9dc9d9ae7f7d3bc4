#pragma once
// parse_json: the one parser of every JSON document dtplan reads, and JsonReader: checked field
// access for the *_io.cc readers (only they include nlohmann/json). Every error is kBadInput and
// reads "<source>: field '<path>': <what>", so a user can find the field in the file:
//
//   core::JsonReader r("plan.json");
//   DTPLAN_TRY(const Json* steps, r.get(doc, "steps", ""));  // "plan.json: field 'steps': missing"
//   DTPLAN_TRY(std::int64_t n, r.integer((*steps)[0]["bytes"], "steps[0].bytes"));
//
// Paths join with join_path("steps[0]", "bytes") == "steps[0].bytes" (core/field_path.h).
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/field_path.h"
#include "core/result.h"

namespace dtplan::core {

// Parses the whole of `text` (the contents of `source`) as one JSON document, more strictly than
// JSON itself: a key given twice in one object (where nlohmann keeps the last silently) and a
// control character (U+0000-U+001F, U+007F-U+009F) in any key or string (they would break the
// one-line tables and errors that print names) are errors naming their path. Examples of errors:
//   "m.json: invalid JSON: parse error at line 1, column 2: syntax error while parsing ..."
//   "m.json: field 'flatten[0].name': duplicate key 'name' (each key may appear once per object)"
//   "m.json: field 'names[1]': control character U+0009 in a string (not allowed in input)"
// @post errors: kBadInput naming `source` (and the field's path where there is one); without a
// source (an empty one) the message starts with "invalid JSON" or "field".
Result<nlohmann::ordered_json> parse_json(std::string_view text, std::string_view source);

class JsonReader {
 public:
  using Json = nlohmann::ordered_json;

  explicit JsonReader(std::string_view source) : source_(source) {}

  [[nodiscard]] Error error(const std::string& path, const std::string& what) const {
    return field_error(path, what).with_context(source_);
  }

  // obj[key], where obj sits at `path`.
  Result<const Json*> get(const Json& obj, std::string_view key, const std::string& path) const {
    if (!obj.is_object()) return error(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) return error(join_path(path, key), "missing");
    return &*it;
  }

  Result<std::int64_t> integer(const Json& j, const std::string& path) const {
    const bool fits = j.is_number_integer() &&
                      (!j.is_number_unsigned() ||
                       j.get<std::uint64_t>() <=
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!fits) return error(path, "expected an integer, got " + brief(j));
    return j.get<std::int64_t>();
  }

  Result<double> number(const Json& j, const std::string& path) const {
    if (!j.is_number()) return error(path, "expected a number, got " + brief(j));
    return j.get<double>();
  }

  Result<std::string> string(const Json& j, const std::string& path) const {
    if (!j.is_string()) return error(path, "expected a string, got " + brief(j));
    return j.get<std::string>();
  }

  Result<bool> boolean(const Json& j, const std::string& path) const {
    if (!j.is_boolean()) return error(path, "expected true or false, got " + brief(j));
    return j.get<bool>();
  }

  Result<std::vector<std::int64_t>> ints(const Json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected a list of integers, got " + brief(j));
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      DTPLAN_TRY(std::int64_t v, integer(j[i], index_path(path, i)));
      out.push_back(v);
    }
    return out;
  }

  Result<std::vector<std::string>> strings(const Json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected a list of strings, got " + brief(j));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      DTPLAN_TRY(std::string v, string(j[i], index_path(path, i)));
      out.push_back(std::move(v));
    }
    return out;
  }

  // The list at obj[key] (an error unless it is an array).
  Result<const Json*> list(const Json& obj, std::string_view key, const std::string& path) const {
    DTPLAN_TRY(const Json* j, get(obj, key, path));
    if (!j->is_array()) return error(join_path(path, key), "expected a list, got " + brief(*j));
    return j;
  }

  // Wraps an error of a parser with the field path.
  template <class T>
  Result<T> at(Result<T> r, const std::string& path) const {
    if (r.ok()) return r;
    return error(path, std::move(r).error().message);
  }

  [[nodiscard]] std::string_view source() const { return source_; }

 private:
  static std::string brief(const Json& j) {
    std::string text = j.dump();
    return text.size() <= 60 ? text : text.substr(0, 57) + "...";
  }
  std::string_view source_;
};

}  // namespace dtplan::core
