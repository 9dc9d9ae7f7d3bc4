// read_text_file / write_text_file: contents round trip, errors name what and where, and a failed
// write leaves the old file as it was.
#include "core/text_file.h"

#include <doctest/doctest.h>

#include <filesystem>

namespace dtplan::core {
namespace {

TEST_CASE("text_file: round trip and errors") {
  const auto dir = std::filesystem::temp_directory_path() / "dtplan_text_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "a.txt").string();
  REQUIRE(write_text_file(path, std::string("one\0two\n", 8), "test file").ok());
  CHECK(read_text_file(path, "test file").value() == std::string("one\0two\n", 8));
  REQUIRE(write_text_file(path, "", "test file").ok());
  CHECK(read_text_file(path, "test file").value().empty());

  auto missing = read_text_file((dir / "b.txt").string(), "mesh file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::kBadInput);
  CHECK(missing.error().message.rfind(
            "cannot read the mesh file " + (dir / "b.txt").string() + ": No such file", 0) == 0);
  REQUIRE(write_text_file(path, "kept", "test file").ok());
  auto bad = write_text_file(dir.string(), "x", "output file");  // a directory: rename fails
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.rfind("cannot write the output file " + dir.string(), 0) == 0);
  CHECK(read_text_file(path, "test file").value() == "kept");
  CHECK_FALSE(std::filesystem::exists(dir.string() + ".tmp"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtplan::core
