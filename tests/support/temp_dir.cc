#include "support/temp_dir.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

namespace dtplan::testing {

TempDir::TempDir(const std::string& tag) {
  std::string name =
      (std::filesystem::temp_directory_path() / ("dtplan_" + tag + "_XXXXXX")).string();
  REQUIRE(::mkdtemp(name.data()) != nullptr);
  path_ = name;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::set<std::string> TempDir::names() const {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(path_)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace dtplan::testing
