#include "core/text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dtplan::core {

namespace {

Error file_error(std::string_view verb, std::string_view what, const std::string& path, int err) {
  std::string message = "cannot " + std::string(verb) + " the " + std::string(what) + " " + path;
  if (err != 0) message += ": " + std::string(std::strerror(err));
  return Error::bad_input(std::move(message));
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return file_error("read", what, path, errno);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return file_error("read", what, path, errno);
  return text.str();
}

Status write_text_file(const std::string& path, std::string_view text, std::string_view what) {
  const std::string temp = path + ".tmp";
  {
    errno = 0;
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return file_error("write", what, path, errno);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      const int err = errno;
      std::remove(temp.c_str());
      return file_error("write", what, path, err);
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    return file_error("write", what, path, err);
  }
  return {};
}

}  // namespace dtplan::core
