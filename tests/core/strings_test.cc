#include "core/strings.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace dtplan::core {
namespace {

TEST_CASE("split keeps empty pieces and trim strips whitespace") {
  auto parts = split("a,,b", ',');
  REQUIRE(parts.size() == 3);
  CHECK(parts[0] == "a");
  CHECK(parts[1].empty());
  CHECK(parts[2] == "b");
  CHECK(split("", ',').size() == 1);
  CHECK(trim("  dp \t") == "dp");
  std::vector<std::string> names = {"dp", "tp"};
  CHECK(join(names, "_") == "dp_tp");
}

TEST_CASE("integer parsing names the input") {
  CHECK(parse_int(" 42 ", "--layers").value() == 42);
  CHECK(parse_int("-3", "x").value() == -3);
  CHECK(parse_int("+7", "x").value() == 7);
  auto bad = parse_int("x2", "--shape");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "--shape: 'x2' is not an integer");
  CHECK_FALSE(parse_int("99999999999999999999", "x").ok());
  CHECK_FALSE(parse_int("", "x").ok());
  CHECK_FALSE(parse_int("1.5", "x").ok());
  CHECK(parse_int_list("16,16,16", "--shape").value() == std::vector<std::int64_t>{16, 16, 16});
  CHECK_FALSE(parse_int_list("2,,2", "--shape").ok());
  CHECK_FALSE(parse_int_list("", "--shape").ok());
  CHECK(parse_name_list("dp, tp", "--names").value() == std::vector<std::string>{"dp", "tp"});
  CHECK_FALSE(parse_name_list("dp,", "--names").ok());
}

TEST_CASE("edit distance and suggestions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("mesh", "mseh") == 1);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  std::vector<std::string> commands = {"mesh", "redistribute", "cost", "plan"};
  CHECK(closest_name("mseh", commands).value() == "mesh");
  CHECK(closest_name("redistribtue", commands).value() == "redistribute");
  CHECK_FALSE(closest_name("zzzzzz", commands).has_value());
  std::vector<std::int64_t> v = {1, 2, 3};
  CHECK(format_int_list(v) == "[1,2,3]");
}

}  // namespace
}  // namespace dtplan::core
