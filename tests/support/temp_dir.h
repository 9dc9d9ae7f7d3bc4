#pragma once
// A fresh directory for one test, removed with everything in it at scope exit, and the whole
// contents of a file, for tests that write files and look at what they became.

#include <filesystem>
#include <set>
#include <string>

namespace dtplan::testing {

class TempDir {
 public:
  // Makes /tmp/dtplan_<tag>_XXXXXX (a unique name); fails the test when it cannot.
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `name` inside the directory.
  std::string at(const std::string& name) const { return (path_ / name).string(); }
  // The names of the directory's entries (to show that no temporary file was left behind).
  std::set<std::string> names() const;

 private:
  std::filesystem::path path_;
};

// The bytes of the file at `path` ("" when it cannot be read).
std::string file_text(const std::string& path);

}  // namespace dtplan::testing
