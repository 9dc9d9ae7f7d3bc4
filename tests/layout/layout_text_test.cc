#include "layout/layout_text.h"

#include <doctest/doctest.h>

#include <random>

#include "support/layout_gen.h"

namespace dtplan::layout {
namespace {

TEST_CASE("layout text: the syntax examples parse and print back") {
  for (const char* text :
       {"(2,2):(4,1)", "4:2", "((2,2)):((4,1))", "((7,(5,3)),2):((900,(36,4)),1)", "():()",
        "(4):(2)", "(2,(2,4)):(32,(16,1))"}) {
    auto l = parse_layout(text);
    REQUIRE_MESSAGE(l.ok(), text);
    CHECK(to_string(*l) == text);
  }
  Layout nested = parse_layout("((2,2)):((4,1))").value();
  CHECK(rank(nested) == 1);
  CHECK(flat_modes(nested) == std::vector<Mode>{{2, 4}, {2, 1}});
  CHECK(to_string(parse_layout(" ( 2 , 2 ) : ( 4 , 1 ) ").value()) == "(2,2):(4,1)");
  CHECK(parse_layout("(4,):(2,)").value() == parse_layout("(4):(2)").value());
}

TEST_CASE("layout text: errors name the text and the position") {
  auto e = parse_layout("(2,2:(4,1)");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().kind == core::ErrorKind::kBadInput);
  CHECK(e.error().message == "layout '(2,2:(4,1)': expected ',' or ')' at position 4");
  CHECK(parse_layout("(2,2)").error().message ==
        "layout '(2,2)': expected ':' between sizes and strides at position 5");
  CHECK(parse_layout("(2,2):(4,1)x").error().message ==
        "layout '(2,2):(4,1)x': unexpected text at position 11");
  CHECK(parse_layout("(2,2):(4)").error().message.find("sizes (2,2) and strides (4) don't match") !=
        std::string::npos);
  CHECK(parse_layout("0:1").error().message.find("size 0") != std::string::npos);
  CHECK(parse_layout("99999999999999999999:1").error().message.find("overflows") !=
        std::string::npos);
  for (const char* bad : {"", ":", "2:", ":2", "(2,):(1,2)", "-2:1", "2:-1", "(,)", "((2)", "2:1:1",
                          "a:b", "(2,,2):(1,1,1)", "(2 2):(1 1)"}) {
    CHECK_MESSAGE(!parse_layout(bad).ok(), bad);
  }
  std::string deep = std::string(40, '(') + "2" + std::string(40, ')');
  auto d = parse_layout(deep + ":" + deep);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("nesting deeper than 32") != std::string::npos);
}

TEST_CASE("layout text: parse(print(L)) == L over random nested layouts") {
  std::mt19937_64 rng(0x7e47);
  for (int trial = 0; trial < 1000; ++trial) {
    Layout l = testing::random_layout(rng);
    auto back = parse_layout(to_string(l));
    REQUIRE(back.ok());
    CHECK(*back == l);
    CHECK(parse_int_tuple(to_string(l.shape())).value() == l.shape());
  }
}

TEST_CASE("layout text: random text never crashes and what parses prints back") {
  const std::string alphabet = "()0123456789,: ";
  std::mt19937_64 rng(0xf022);
  int parsed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string text;
    for (std::int64_t n = testing::uniform(rng, 0, 16); n > 0; --n) {
      text += alphabet[static_cast<std::size_t>(testing::uniform(rng, 0, 14))];
    }
    auto l = parse_layout(text);
    if (!l.ok()) {
      CHECK(l.error().message.starts_with("layout "));
      continue;
    }
    ++parsed;
    CHECK(parse_layout(to_string(*l)).value() == *l);
  }
  CHECK(parsed > 0);
}

}  // namespace
}  // namespace dtplan::layout
