#include "mesh/py_text.h"

#include <doctest/doctest.h>

#include <vector>

namespace dtplan::mesh {
namespace {

TEST_CASE("py_text: tuples and lists as Python prints them") {
  std::vector<std::string> two = {"dp", "tp"};
  std::vector<std::string> one = {"dp"};
  std::vector<std::string> none;
  CHECK(py_tuple(two) == "('dp', 'tp')");
  CHECK(py_tuple(one) == "('dp',)");
  CHECK(py_tuple(none) == "()");
  CHECK(py_list(two) == "['dp', 'tp']");
  CHECK(py_list(one) == "['dp']");
  std::vector<std::int64_t> sizes = {2, 4};
  std::vector<std::int64_t> single = {8};
  CHECK(py_tuple(std::span<const std::int64_t>(sizes)) == "(2, 4)");
  CHECK(py_tuple(std::span<const std::int64_t>(single)) == "(8,)");
}

}  // namespace
}  // namespace dtplan::mesh
