#include "support/source_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/cli.h"

namespace dtplan::testing {

std::vector<SourceFile> dtplan_sources() {
  std::vector<SourceFile> out;
  const std::filesystem::path root(source_path(""));
  for (const char* folder : {"lib", "apps"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      out.push_back({std::filesystem::relative(entry.path(), root).string(), text.str()});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace dtplan::testing
