#pragma once
// Field paths: where a value sits in a JSON document, as readers and the checks after them name
// it ("redistributions[3].steps[0].bytes"), and the error that names one. A reader prefixes the
// error with its source, so every message about a field reads
// "<source>: field '<path>': <what>" (core::JsonReader::error gives the same text).
//
//   join_path("steps[0]", "bytes") == "steps[0].bytes";  join_path("", "bytes") == "bytes"
//   index_path("steps", 2) == "steps[2]"
//   field_error("steps[2].bytes", "must be >= 0").message == "field 'steps[2].bytes': must be >= 0"

#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.h"

namespace dtplan::core {

inline std::string join_path(const std::string& base, std::string_view key) {
  return base.empty() ? std::string(key) : base + "." + std::string(key);
}

inline std::string index_path(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

// kBadInput "field '<path>': <what>".
inline Error field_error(const std::string& path, const std::string& what) {
  return Error::bad_input("field '" + path + "': " + what);
}

}  // namespace dtplan::core
