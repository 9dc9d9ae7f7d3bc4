#include "core/text_file.h"

#include <cerrno>
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

}  // namespace dtplan::core
