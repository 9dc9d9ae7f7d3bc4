#include "core/text_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/limits.h"
#include "core/units.h"

namespace dtplan::core {

namespace {

Error file_error(std::string_view verb, std::string_view what, const std::string& path, int err) {
  std::string message = "cannot " + std::string(verb) + " the " + std::string(what) + " " + path;
  if (err != 0) message += ": " + std::string(std::strerror(err));
  return Error::bad_input(std::move(message));
}

}  // namespace

Result<std::int64_t> max_input_bytes() {
  const char* value = std::getenv(std::string(kMaxInputBytesVariable).c_str());
  if (value == nullptr) return kMaxInputBytes;
  DTPLAN_TRY(std::int64_t bytes, parse_size(value, kMaxInputBytesVariable));
  if (bytes < 1) {
    return Error::bad_input(std::string(kMaxInputBytesVariable) + ": '" + value +
                            "' is not a positive size");
  }
  return bytes;
}

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  DTPLAN_TRY(std::int64_t max_bytes, max_input_bytes());
  return read_text_file(path, what, max_bytes);
}

Result<std::string> read_text_file(const std::string& path, std::string_view what,
                                   std::int64_t max_bytes) {
  const auto too_large = [&] {
    return Error::bad_input("cannot read the " + std::string(what) + " " + path +
                            ": larger than the input limit of " + std::to_string(max_bytes) +
                            " bytes (kMaxInputBytes in core/limits.h; set " +
                            std::string(kMaxInputBytesVariable) + " to raise it)");
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return file_error("read", what, path, errno);
  // A regular file's size is known before reading; other files (devices, pipes) are read up to
  // one byte past the cap.
  struct stat info {};
  const auto limit = static_cast<std::uint64_t>(max_bytes);
  std::string text;
  if (fstat(fileno(file.get()), &info) == 0 && S_ISREG(info.st_mode)) {
    if (static_cast<std::uint64_t>(info.st_size) > limit) return too_large();
    text.reserve(static_cast<std::size_t>(info.st_size));
  }
  std::array<char, 1 << 16> buffer;
  while (true) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), limit + 1 - text.size()));
    errno = 0;
    const std::size_t got = std::fread(buffer.data(), 1, want, file.get());
    text.append(buffer.data(), got);
    if (text.size() > limit) return too_large();
    if (got < want) {
      if (std::ferror(file.get())) return file_error("read", what, path, errno);
      return text;
    }
  }
}

}  // namespace dtplan::core
