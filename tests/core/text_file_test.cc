// read_text_file: contents round trip, and errors name what and where.
#include "core/text_file.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/limits.h"
#include "core/strings.h"
#include "support/source_files.h"

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

// Regression: a 200 MB file or /dev/zero was read whole (3.8 GB of memory for the JSON parse)
// before any check. Reading stops one byte past the cap.
TEST_CASE("text_file: input is read up to a cap, a byte past it is an error naming the cap") {
  const auto dir = std::filesystem::temp_directory_path() / "dtplan_text_file_cap_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "a.json").string();
  std::ofstream(path, std::ios::binary) << std::string(100, 'x');
  CHECK(read_text_file(path, "mesh file", 100).value() == std::string(100, 'x'));
  auto over = read_text_file(path, "mesh file", 99);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().kind == ErrorKind::kBadInput);
  CHECK(over.error().message ==
        "cannot read the mesh file " + path +
            ": larger than the input limit of 99 bytes (kMaxInputBytes in core/limits.h; set "
            "DTPLAN_MAX_INPUT_BYTES to raise it)");
  CHECK(read_text_file(path, "mesh file", 0).error().message.find("limit of 0 bytes") !=
        std::string::npos);
  // Devices and pipes have no size up front: an endless one stops at the cap.
  auto zero = read_text_file("/dev/zero", "plan file", 1 << 20);
  REQUIRE_FALSE(zero.ok());
  CHECK(
      zero.error().message.starts_with("cannot read the plan file /dev/zero: larger than the "
                                       "input limit of 1048576 bytes"));
  CHECK(read_text_file("/dev/null", "plan file", 10).value().empty());
  // A directory is unreadable, not empty.
  auto folder = read_text_file(dir.string(), "plan file", 10);
  REQUIRE_FALSE(folder.ok());
  CHECK(folder.error().message == "cannot read the plan file " + dir.string() + ": Is a directory");
  std::filesystem::remove_all(dir);
}

TEST_CASE("text_file: the cap is kMaxInputBytes unless DTPLAN_MAX_INPUT_BYTES says otherwise") {
  REQUIRE(std::getenv("DTPLAN_MAX_INPUT_BYTES") == nullptr);
  CHECK(max_input_bytes().value() == kMaxInputBytes);
  ::setenv("DTPLAN_MAX_INPUT_BYTES", "1GiB", 1);
  CHECK(max_input_bytes().value() == std::int64_t{1} << 30);
  ::setenv("DTPLAN_MAX_INPUT_BYTES", "10", 1);
  auto small = read_text_file("/dev/zero", "model file");
  REQUIRE_FALSE(small.ok());
  CHECK(small.error().message.find("input limit of 10 bytes") != std::string::npos);
  for (const char* bad : {"0", "-5", "lots", ""}) {
    ::setenv("DTPLAN_MAX_INPUT_BYTES", bad, 1);
    auto r = max_input_bytes();
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kBadInput);
    CHECK(r.error().message.starts_with("DTPLAN_MAX_INPUT_BYTES: "));
  }
  ::unsetenv("DTPLAN_MAX_INPUT_BYTES");
}

// Every input file is read by read_text_file, so the cap holds for all of them: no other code of
// lib/ or apps/ opens a file for reading.
TEST_CASE("text_file: no other source reads files") {
  // Ways to read a file; opening one for writing (fopen(.., "w"), open(.., O_WRONLY)) is fine.
  const std::vector<std::string> readers = {"ifstream", "fread(",   "std::cin", "mmap(",
                                            "getline(", "O_RDONLY", "O_RDWR"};
  std::vector<std::string> offenders;
  const std::vector<testing::SourceFile> sources = testing::dtplan_sources();
  for (const testing::SourceFile& file : sources) {
    if (file.path == "lib/core/text_file.cc") continue;  // the reader itself
    // The writer tests the access mode of a descriptor it is given (O_RDONLY: not writable).
    if (file.path == "lib/core/output_file.cc") continue;
    for (std::string_view line : split(file.text, '\n')) {
      for (const std::string& r : readers) {
        if (line.find(r) != std::string_view::npos) {
          offenders.push_back(file.path + ": " + std::string(line));
        }
      }
      const std::size_t open = line.find("fopen(");
      if (open != std::string_view::npos && line.find("\"r", open) != std::string_view::npos) {
        offenders.push_back(file.path + ": " + std::string(line));
      }
    }
  }
  CHECK(sources.size() > 100);
  INFO("read input files with core::read_text_file (core/text_file.h)");
  CHECK(offenders == std::vector<std::string>{});
}

}  // namespace
}  // namespace dtplan::core
