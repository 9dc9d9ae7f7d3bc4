#include "core/output_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <optional>

namespace dtplan::core {

namespace {

// Symbolic links followed before giving up, the kernel's own limit (ELOOP).
constexpr int kMaxLinks = 40;

// Characters of the path's file name kept in the temporary file's name, so that the name (a dot,
// these, a dot and six random characters) stays under the usual 255-byte limit.
constexpr std::size_t kTempStemChars = 200;

// How an output path is written, found from what it is once its links are followed.
enum class Way : std::uint8_t {
  kCreate,      // nothing there yet: a new file, written under a temporary name and renamed
  kReplace,     // a regular file: replaced the same way, keeping its owner and permission bits
  kDirect,      // a character device or a FIFO: opened and written in place
  kDescriptor,  // one of this process's open descriptors (/dev/stdout, /dev/fd/N)
};

struct Target {
  Way way = Way::kCreate;
  std::string path;   // the file to create or replace, or the node to open
  int fd = -1;        // kDescriptor: the descriptor
  struct stat st {};  // kReplace: the file as it is
};

// The errors about one output, each "NAME PATH: REASON".
struct OutputErrors {
  std::string_view name;
  const std::string& path;

  Error make(ErrorKind kind, std::string_view reason) const {
    return {kind, std::string(name) + " " + path + ": " + std::string(reason)};
  }
  // The path cannot be an output (missing parent, no permission, a loop of links).
  Error bad(int err) const {
    return make(ErrorKind::kBadInput, std::generic_category().message(err));
  }
  // Writing the output failed (a full disk, a file-size limit, a closed pipe, an I/O error); a
  // refusal found only then (renaming over another user's file in a sticky directory) is still
  // about the path.
  Error failed(int err) const {
    const bool refused = err == EACCES || err == EPERM || err == EROFS;
    return make(refused ? ErrorKind::kBadInput : ErrorKind::kInternal,
                std::generic_category().message(err));
  }
};

// The descriptor N that `path` names when it is /dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N or
// /proc/{self,thread-self,PID}/fd/N. Opening such a path would start a new offset at 0 (or
// truncate), and following it would find the file behind the descriptor and replace it; writing
// through the descriptor itself is what a user of `--out /dev/stdout` means.
std::optional<int> descriptor_alias(const std::string& path) {
  std::error_code ec;
  const std::string p = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) return std::nullopt;
  if (p == "/dev/stdin") return 0;
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  const std::string prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
                                  "/proc/" + std::to_string(::getpid()) + "/fd/"};
  for (const std::string& prefix : prefixes) {
    if (!p.starts_with(prefix)) continue;
    const char* first = p.data() + prefix.size();
    const char* last = p.data() + p.size();
    int fd = -1;
    auto [end, err] = std::from_chars(first, last, fd);
    if (err == std::errc() && end == last && first != last && fd >= 0) return fd;
  }
  return std::nullopt;
}

// Follows `path`'s symbolic links to what will be written: the first path that is a descriptor
// alias, does not exist, or is not a link.
Result<Target> resolve(const std::string& path, const OutputErrors& errors) {
  std::string current = path;
  for (int hop = 0; hop <= kMaxLinks; ++hop) {
    if (auto fd = descriptor_alias(current)) {
      return Target{.way = Way::kDescriptor, .path = current, .fd = *fd};
    }
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0) {
      if (errno == ENOENT) return Target{.way = Way::kCreate, .path = current};
      return errors.bad(errno);
    }
    switch (st.st_mode & S_IFMT) {
      case S_IFLNK: {
        std::error_code ec;
        const std::filesystem::path link = std::filesystem::read_symlink(current, ec);
        if (ec) return errors.bad(ec.value());
        current = link.is_absolute()
                      ? link.string()
                      : (std::filesystem::path(current).parent_path() / link).string();
        continue;
      }
      case S_IFREG:
        return Target{.way = Way::kReplace, .path = current, .st = st};
      case S_IFCHR:
      case S_IFIFO:
        return Target{.way = Way::kDirect, .path = current};
      case S_IFDIR:
        return errors.make(ErrorKind::kBadInput, "is a directory");
      case S_IFBLK:
        return errors.make(ErrorKind::kBadInput, "is a block device");
      default:
        return errors.make(ErrorKind::kBadInput, "is a socket");
    }
  }
  return errors.bad(ELOOP);
}

// The process's file-creation mask. POSIX has no getter: it is read by setting it and putting it
// back (outputs are written after any worker threads of a command have finished).
mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// A temporary file being written: closed and removed on every path that does not keep it.
class TempFile {
 public:
  TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes the descriptor; @return close()'s result.
  int close() {
    const int r = ::close(fd_);
    fd_ = -1;
    return r;
  }
  // The file was renamed into place: nothing to remove any more.
  void keep() { path_.clear(); }

 private:
  std::string path_;
  int fd_;
};

// Writes a new file beside `t.path` and renames it over `t.path`.
Status replace_file(const Target& t, std::string_view text, const OutputErrors& errors) {
  if (t.way == Way::kReplace && ::faccessat(AT_FDCWD, t.path.c_str(), W_OK, AT_EACCESS) != 0) {
    return errors.bad(errno);  // a read-only file stays read-only, as a shell's `>` would find
  }
  const std::filesystem::path target(t.path);
  const std::string dir = target.parent_path().string();
  std::string temp = (dir.empty() ? std::string() : dir + "/") + "." +
                     target.filename().string().substr(0, kTempStemChars) + ".XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (t.way == Way::kCreate) return errors.bad(err);
    return errors.make(ErrorKind::kBadInput, "cannot create a temporary file in " +
                                                 (dir.empty() ? std::string(".") : dir) + ": " +
                                                 std::generic_category().message(err));
  }
  TempFile file(std::move(temp), fd);
  mode_t mode = 0666 & ~current_umask();
  if (t.way == Way::kReplace) {
    // Keeping another user's ownership needs privileges; without them the file becomes ours, as
    // with any editor that saves by renaming. chown comes first: it clears set-id bits.
    if (t.st.st_uid != ::geteuid() || t.st.st_gid != ::getegid()) {
      [[maybe_unused]] const int ignored = ::fchown(fd, t.st.st_uid, t.st.st_gid);
    }
    mode = t.st.st_mode & 07777;
  }
  if (::fchmod(fd, mode) != 0) return errors.failed(errno);
  if (std::error_code ec = write_all(fd, text)) return errors.failed(ec.value());
  // fsync reports what the file system found only when writing back (a quota, a full disk on a
  // network file system); a file system without it has nothing to report.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP && errno != ENOSYS) {
    return errors.failed(errno);
  }
  if (file.close() != 0) return errors.failed(errno);
  if (::rename(file.path().c_str(), t.path.c_str()) != 0) return errors.failed(errno);
  file.keep();
  return {};
}

// Opens a character device or FIFO and writes it in place.
Status write_node(const Target& t, std::string_view text, const OutputErrors& errors) {
  const int fd = ::open(t.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errors.bad(errno);
  const std::error_code ec = write_all(fd, text);
  const int closed = ::close(fd);
  const int close_error = errno;
  if (ec) return errors.failed(ec.value());
  if (closed != 0) return errors.failed(close_error);
  return {};
}

// Writes through an open descriptor of this process, which stays open.
Status write_descriptor(const Target& t, std::string_view text, const OutputErrors& errors) {
  const int flags = ::fcntl(t.fd, F_GETFL);
  if (flags < 0) return errors.bad(errno);
  if ((flags & O_ACCMODE) == O_RDONLY) return errors.bad(EBADF);
  if (std::error_code ec = write_all(t.fd, text)) return errors.failed(ec.value());
  return {};
}

}  // namespace

std::error_code write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n > 0) {
      text.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // A non-blocking descriptor (a pipe its reader's side made so): wait until it takes more.
      pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR) return {errno, std::generic_category()};
      continue;
    }
    return {n < 0 ? errno : EIO, std::generic_category()};
  }
  return {};
}

Status write_output_file(const std::string& path, std::string_view text, std::string_view name) {
  const OutputErrors errors{.name = name, .path = path};
  if (path.empty()) return errors.bad(ENOENT);
  DTPLAN_TRY(const Target target, resolve(path, errors));
  switch (target.way) {
    case Way::kCreate:
    case Way::kReplace:
      return replace_file(target, text, errors);
    case Way::kDirect:
      return write_node(target, text, errors);
    case Way::kDescriptor:
      return write_descriptor(target, text, errors);
  }
  return errors.bad(EINVAL);
}

}  // namespace dtplan::core
