#include "core/units.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace dtplan::core {
namespace {

TEST_CASE("sizes in the text syntax") {
  CHECK(parse_size("4096", "s").value() == 4096);
  CHECK(parse_size("64KiB", "s").value() == 65536);
  CHECK(parse_size("8MiB", "s").value() == 8388608);
  CHECK(parse_size("1GiB", "s").value() == 1073741824);
  CHECK(parse_size("80GiB", "s").value() == 80LL * 1073741824);
  CHECK(parse_size("8G", "s").value() == 8LL * 1073741824);
  CHECK(parse_size("1GB", "s").value() == 1000000000);
  CHECK(parse_size("512B", "s").value() == 512);
  CHECK(parse_size("0", "s").value() == 0);
  auto neg = parse_size("-1", "--memory-limit");
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().message.find("--memory-limit") == 0);
  CHECK(neg.error().message.find("negative") != std::string::npos);
  CHECK_FALSE(parse_size("12XB", "s").ok());
  CHECK_FALSE(parse_size("GiB", "s").ok());
  CHECK_FALSE(parse_size("99999999TiB", "s").ok());
}

TEST_CASE("size sweeps like nccl-tests") {
  CHECK(parse_size_range("8:64:x2", "r").value() == std::vector<std::int64_t>{8, 16, 32, 64});
  CHECK(parse_size_range("8:8GiB:x2", "r").value().size() == 31);
  CHECK(parse_size_range("0:3:+1", "r").value() == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(parse_size_range("1MiB", "r").value() == std::vector<std::int64_t>{1048576});
  CHECK_FALSE(parse_size_range("64:8:x2", "r").ok());
  CHECK_FALSE(parse_size_range("8:64:x1", "r").ok());
  CHECK_FALSE(parse_size_range("0:64:x2", "r").ok());
  CHECK_FALSE(parse_size_range("8:64", "r").ok());
  CHECK_FALSE(parse_size_range("1:1TiB:+1", "r").ok());
}

TEST_CASE("size and number formatting") {
  CHECK(format_size(8388608) == "8MiB");
  CHECK(format_size(1000) == "1000B");
  CHECK(format_size(0) == "0B");
  CHECK(format_size(3LL << 30) == "3GiB");
  CHECK(format_fixed(25.2049, 2) == "25.20");
  CHECK(format_fixed(-0.0001, 2) == "0.00");
  CHECK(format_fixed(1.0 / 0.0, 2) == "inf");
}

}  // namespace
}  // namespace dtplan::core
