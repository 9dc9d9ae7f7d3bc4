// parse_json, the one JSON parser of dtplan's input: documents parse as nlohmann parses them, and
// what nlohmann lets through silently (a key given twice, control characters in strings) is an
// error naming the field's path. A scan of the sources checks that no other code parses JSON.
#include "core/json_io.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/source_files.h"

namespace dtplan::core {
namespace {

using Json = nlohmann::ordered_json;

std::string error_of(std::string_view text, std::string_view source = "f.json") {
  auto r = parse_json(text, source);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kBadInput);
  return r.error().message;
}

TEST_CASE("parse_json: valid documents parse as nlohmann parses them, keys in document order") {
  for (const char* text : {R"({"b": 1, "a": [1, 2.5, "x", null, true, {"c": {}}]})", "[]", "7",
                           R"("caf\u00e9 \u2014 ok")", R"({"a": {"a": {"a": 1}}, "b": [{"a": 2}]})",
                           R"([{"k": 1}, {"k": 2}])"}) {
    CAPTURE(text);
    auto r = parse_json(text, "f.json");
    REQUIRE(r.ok());
    CHECK(*r == Json::parse(text));
    CHECK(r->dump() == Json::parse(text).dump());
  }
  CHECK(parse_json(R"({"b": 1, "a": 2})", "f.json")->begin().key() == "b");
}

TEST_CASE("parse_json: syntax errors say where, with or without a source") {
  CHECK(
      error_of("{", "m.json").starts_with("m.json: invalid JSON: parse error at line 1, column 2"));
  CHECK(error_of("").starts_with("f.json: invalid JSON: "));
  CHECK(error_of(R"({"a": 1} {})").starts_with("f.json: invalid JSON: "));
  // A number beyond a double is out_of_range in nlohmann, not parse_error: still one error.
  CHECK(error_of(R"({"a": [1e999]})") == "f.json: invalid JSON: number overflow parsing '1e999'");
  CHECK(error_of("[1,", "").starts_with("invalid JSON: parse error"));
}

// Regression: nlohmann keeps the last value of a repeated key, so `{"shape": [2], "shape": [4]}`
// read as shape [4] while an unknown key was refused.
TEST_CASE("parse_json: a key given twice in an object is an error naming the key and its path") {
  CHECK(error_of(R"({"shape": [2], "shape": [4]})", "m.json") ==
        "m.json: field 'shape': duplicate key 'shape' (each key may appear once per object)");
  CHECK(error_of(R"({"node": {"a": 1, "gpus": 8, "b": 2, "gpus": 4}})")
            .starts_with("f.json: field 'node.gpus': duplicate key 'gpus'"));
  CHECK(error_of(R"({"flatten": [{"dims": ["a"]}, {"dims": ["a"], "name": "x", "dims": []}]})")
            .starts_with("f.json: field 'flatten[1].dims': duplicate key 'dims'"));
  CHECK(error_of(R"([[1, 2], [{"x": {"y": 1, "y": {"z": 2}}}]])")
            .starts_with("f.json: field '[1][0].x.y': duplicate key 'y'"));
  // The first repeated key in document order, when several repeat.
  CHECK(error_of(R"({"a": 1, "b": 2, "b": 3, "a": 4})")
            .starts_with("f.json: field 'b': duplicate key 'b'"));
  // The same key in different objects is no repeat.
  CHECK(parse_json(R"({"a": {"k": 1}, "b": {"k": 1}, "k": [{"k": 2}, {"k": 3}]})", "f").ok());
  // An object of many keys, one repeated at the end.
  std::string many = "{";
  for (int i = 0; i < 500; ++i)
    many += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  CHECK(parse_json(many + "\"last\": 0}", "f").ok());
  CHECK(error_of(many + "\"k7\": 0}").starts_with("f.json: field 'k7': duplicate key 'k7'"));
}

// Regression: a name holding a newline or an escape sequence broke the one-line tables and errors
// that print it.
TEST_CASE("parse_json: control characters in a string or key are errors naming the field") {
  CHECK(error_of(R"({"names": ["dp", "t\tp"]})", "m.json") ==
        "m.json: field 'names[1]': control character U+0009 in a string (not allowed in input: "
        "names and text print on one line)");
  CHECK(error_of(R"({"name": "red \u001b[31m"})")
            .starts_with("f.json: field 'name': control "
                         "character U+001B"));
  CHECK(error_of(R"({"a": {"b\nc": 1}})")
            .starts_with("f.json: field 'a.b<U+000A>c': control "
                         "character U+000A"));
  CHECK(error_of(R"({"a": "x\u007fy"})").find("U+007F") != std::string::npos);
  CHECK(error_of(R"({"a": "x\u0085y"})").find("U+0085") != std::string::npos);  // C1 (NEL)
  CHECK(error_of(R"(["ok", "a\u0000b"])")
            .starts_with("f.json: field '[1]': control character "
                         "U+0000"));
  CHECK(error_of(R"("\r")") ==
        "f.json: control character U+000D in a string (not allowed in "
        "input: names and text print on one line)");
  // Printable non-ASCII text stays allowed (U+00A0 follows the C1 block).
  CHECK(parse_json(R"({"a": "\u00a0\u00e9\u4e2d"})", "f").ok());
}

// Every file dtplan reads as JSON goes through parse_json: no other code of lib/ or apps/ calls
// one of nlohmann's parsers (so the duplicate-key and control-character checks cannot be
// bypassed by a new reader).
TEST_CASE("parse_json: no other source parses JSON") {
  const std::vector<std::string> parsers = {"::parse(",  "::sax_parse(", "::accept(",
                                            "from_cbor", "from_msgpack", "from_ubjson",
                                            "from_bson", "\"_json",      ">> doc"};
  std::vector<std::string> offenders;
  const std::vector<testing::SourceFile> sources = testing::dtplan_sources();
  for (const testing::SourceFile& file : sources) {
    if (file.path == "lib/core/json_io.cc") continue;  // the parser itself
    for (const std::string& p : parsers) {
      if (file.text.find(p) != std::string::npos) offenders.push_back(file.path + ": " + p);
    }
  }
  CHECK(sources.size() > 100);
  INFO("parse input JSON with core::parse_json (core/json_io.h)");
  CHECK(offenders == std::vector<std::string>{});
}

}  // namespace
}  // namespace dtplan::core
