#include "graph/attributes.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <random>

namespace dtplan::graph {
namespace {

using Ints = std::vector<std::int64_t>;

TEST_CASE("attributes: typed getters and their errors") {
  Attributes a{
      {"dim", Ints{2}}, {"keepdim", true},          {"equation", std::string("abk,kn->abn")},
      {"other", 1e-5},  {"index", std::int64_t{3}}, {"dtype", core::DType::kBF16}};
  CHECK(a.get_ints("dim").value() == Ints{2});
  CHECK(a.get_int_list("dim").value() == Ints{2});
  CHECK(a.get_bool_or("keepdim", false).value());
  CHECK(a.get_bool_or("absent", true).value());
  CHECK(a.get_string("equation").value() == "abk,kn->abn");
  CHECK(a.get_number("other").value() == 1e-5);
  CHECK(a.get_number("index").value() == 3.0);
  CHECK(a.get_int("index").value() == 3);
  CHECK(a.get_int_or("absent", 7).value() == 7);
  CHECK(a.get_dtype("dtype").value() == core::DType::kBF16);
  Attributes one{{"dim", std::int64_t{-1}}};
  CHECK(one.get_int_list("dim").value() == Ints{-1});

  auto missing = a.get_int("dim0");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "field 'attrs'.'dim0': missing");
  auto wrong = a.get_int("equation");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message ==
        "field 'attrs'.'equation': expected an integer, got string \"abk,kn->abn\"");
  CHECK_FALSE(a.get_bool_or("dim", false).ok());
}

TEST_CASE("attributes: entries stay sorted and unique whatever the insertion order") {
  std::mt19937_64 rng(20240601);
  const std::vector<std::string> names = {"dim", "keepdim", "size", "a", "zz", "dims", "other"};
  for (int trial = 0; trial < 200; ++trial) {
    Attributes a;
    std::vector<std::string> order = names;
    std::shuffle(order.begin(), order.end(), rng);
    for (const std::string& n : order) a.set(n, static_cast<std::int64_t>(rng() % 100));
    for (const std::string& n : order) a.set(n, static_cast<std::int64_t>(n.size()));  // replace
    REQUIRE(a.entries().size() == names.size());
    for (std::size_t i = 1; i < a.entries().size(); ++i) {
      CHECK(a.entries()[i - 1].first < a.entries()[i].first);
    }
    for (const std::string& n : names) {
      CHECK(a.get_int(n).value() == static_cast<std::int64_t>(n.size()));
    }
  }
}

TEST_CASE("attributes: known names and value formatting") {
  CHECK(known_attr_type("keepdim") == AttrType::kBool);
  CHECK(known_attr_type("dim") == AttrType::kIntOrInts);
  CHECK(known_attr_type("size") == AttrType::kInts);
  CHECK(known_attr_type("dtype") == AttrType::kDType);
  CHECK_FALSE(known_attr_type("memory_format").has_value());
  CHECK(attr_value_matches(AttrValue{std::int64_t{2}}, AttrType::kNumber));
  CHECK_FALSE(attr_value_matches(AttrValue{2.5}, AttrType::kInt));
  CHECK(format_attr_value(AttrValue{Ints{0, 2, 1, 3}}) == "[0,2,1,3]");
  CHECK(format_attr_value(AttrValue{1e-5}) == "1e-05");
  CHECK(format_attr_value(AttrValue{0.1}) == "0.1");
  CHECK(format_attr_value(AttrValue{true}) == "true");
  CHECK(format_attr_value(AttrValue{core::DType::kF32}) == "f32");
  CHECK(format_attr_value(AttrValue{-std::numeric_limits<double>::infinity()}) == "-inf");
}

}  // namespace
}  // namespace dtplan::graph
