// read_text_file: contents round trip, and errors name what and where.
#include "core/text_file.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace dtplan::core {
namespace {

TEST_CASE("text_file: round trip and errors") {
  const auto dir = std::filesystem::temp_directory_path() / "dtplan_text_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "a.txt").string();
  std::ofstream(path, std::ios::binary) << std::string("one\0two\n", 8);
  CHECK(read_text_file(path, "test file").value() == std::string("one\0two\n", 8));
  std::ofstream(path, std::ios::binary | std::ios::trunc).flush();
  CHECK(read_text_file(path, "test file").value().empty());

  auto missing = read_text_file((dir / "b.txt").string(), "mesh file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::kBadInput);
  CHECK(missing.error().message.rfind(
            "cannot read the mesh file " + (dir / "b.txt").string() + ": No such file", 0) == 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtplan::core
