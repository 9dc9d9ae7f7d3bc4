#include "core/text_table.h"

#include <doctest/doctest.h>

namespace dtplan::core {
namespace {

TEST_CASE("tables have #-headed header and units rows and aligned cells") {
  TextTable t({{"collective", "", Align::kLeft}, {"size", "B"}, {"time_us", "us"}}, "cost");
  t.add_row({"all_reduce", "8", "25.20"});
  t.add_row({"all_gather", "1048576", "101.5"});
  CHECK(t.rows() == 2);
  CHECK(t.render() ==
        "# cost\n"
        "# collective     size  time_us\n"
        "#                 (B)     (us)\n"
        "  all_reduce        8    25.20\n"
        "  all_gather  1048576    101.5\n");
}

TEST_CASE("tables without units have one header row") {
  TextTable t({{"name", "", Align::kLeft}, {"size"}});
  t.add_row({"dp", "2"});
  CHECK(t.render() == "# name  size\n  dp       2\n");
}

}  // namespace
}  // namespace dtplan::core
