// write_output_file: what each kind of path becomes (a new file, a replaced file with its mode, a
// link written through, a FIFO and devices written in place, a descriptor written at its offset,
// a directory refused), and that a failed write reports its reason and leaves the old file and no
// temporary file behind.
#include "core/output_file.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "support/temp_dir.h"

namespace dtplan::core {
namespace {

namespace fs = std::filesystem;
using testing::file_text;
using testing::TempDir;

void put(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::binary) << text;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

mode_t umask_now() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// Sets a signal's disposition for a scope and puts the old one back.
struct SignalIgnored {
  int sig;
  struct sigaction old {};
  explicit SignalIgnored(int s) : sig(s) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(sig, &ignore, &old);
  }
  ~SignalIgnored() { ::sigaction(sig, &old, nullptr); }
};

TEST_CASE("output_file: a new file and a replaced regular file") {
  TempDir dir("output_file");
  const std::string path = dir.at("plan.json");
  REQUIRE(write_output_file(path, std::string("one\0two\n", 8), "--out").ok());
  CHECK(file_text(path) == std::string("one\0two\n", 8));
  CHECK((lstat_of(path).st_mode & 07777) == (0666 & ~umask_now()));

  // A replaced file keeps its permission bits, but is a new inode: the text was renamed in whole.
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  const ino_t before = lstat_of(path).st_ino;
  REQUIRE(write_output_file(path, "", "--out").ok());
  CHECK(file_text(path).empty());
  CHECK((lstat_of(path).st_mode & 07777) == 0640);
  CHECK(lstat_of(path).st_ino != before);

  // The temporary name is unique: a user's PATH.tmp beside the output is not touched.
  put(path + ".tmp", "mine", 0600);
  REQUIRE(write_output_file(path, "new", "--out").ok());
  CHECK(file_text(path) == "new");
  CHECK(file_text(path + ".tmp") == "mine");
  CHECK(dir.names() == std::set<std::string>{"plan.json", "plan.json.tmp"});
}

TEST_CASE("output_file: symbolic links are written through and stay links") {
  TempDir dir("output_file");
  fs::create_directory(dir.path() / "real");
  put(dir.at("real/plan.json"), "old", 0604);
  fs::create_symlink("real/plan.json", dir.path() / "link.json");  // relative to the link's folder
  REQUIRE(write_output_file(dir.at("link.json"), "new", "--out").ok());
  CHECK(S_ISLNK(lstat_of(dir.at("link.json")).st_mode));
  CHECK(fs::read_symlink(dir.path() / "link.json") == "real/plan.json");
  CHECK(file_text(dir.at("real/plan.json")) == "new");
  CHECK((lstat_of(dir.at("real/plan.json")).st_mode & 07777) == 0604);

  // A chain of links, the last one dangling: the file it names is created.
  fs::create_symlink(dir.path() / "real" / "later.json", dir.path() / "dangling");
  fs::create_symlink("dangling", dir.path() / "chain");
  REQUIRE(write_output_file(dir.at("chain"), "made", "--out").ok());
  CHECK(S_ISLNK(lstat_of(dir.at("chain")).st_mode));
  CHECK(S_ISLNK(lstat_of(dir.at("dangling")).st_mode));
  CHECK(file_text(dir.at("real/later.json")) == "made");
  CHECK(dir.names() == std::set<std::string>{"chain", "dangling", "link.json", "real"});

  // A loop of links is refused, naming the output.
  fs::create_symlink("loop_b", dir.path() / "loop_a");
  fs::create_symlink("loop_a", dir.path() / "loop_b");
  auto loop = write_output_file(dir.at("loop_a"), "x", "--out");
  REQUIRE_FALSE(loop.ok());
  CHECK(loop.error().kind == ErrorKind::kBadInput);
  CHECK(loop.error().message ==
        "--out " + dir.at("loop_a") + ": " + std::generic_category().message(ELOOP));
}

TEST_CASE("output_file: a FIFO and character devices are written in place") {
  TempDir dir("output_file");
  const std::string fifo = dir.at("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string text(300000, 'x');  // more than a pipe holds: the reader must take it as it comes
  for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  std::string received;
  std::thread reader([&] { received = file_text(fifo); });
  const Status written = write_output_file(fifo, text, "--trace");
  reader.join();
  REQUIRE(written.ok());
  CHECK(received == text);
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));

  REQUIRE(write_output_file("/dev/null", text, "--out").ok());
  CHECK(S_ISCHR(lstat_of("/dev/null").st_mode));

  auto full = write_output_file("/dev/full", "{}", "--out");
  REQUIRE_FALSE(full.ok());
  CHECK(full.error().kind == ErrorKind::kInternal);
  CHECK(full.error().message == "--out /dev/full: No space left on device");
  CHECK(S_ISCHR(lstat_of("/dev/full").st_mode));
}

TEST_CASE("output_file: /dev/fd/N and /proc/self/fd/N write through the open descriptor") {
  TempDir dir("output_file");
  const std::string log = dir.at("log.txt");
  put(log, "head\n", 0644);
  const ino_t inode = lstat_of(log).st_ino;
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(write_output_file("/dev/fd/" + std::to_string(fd), "one\n", "--out").ok());
  REQUIRE(write_output_file("/proc/self/fd/" + std::to_string(fd), "two\n", "--out").ok());
  fs::create_symlink("/dev/fd/" + std::to_string(fd), dir.path() / "to_fd");
  REQUIRE(write_output_file(dir.at("to_fd"), "three\n", "--out").ok());
  ::close(fd);
  // Appended at the descriptor's offset, to the same file: nothing truncated or renamed over it.
  CHECK(file_text(log) == "head\none\ntwo\nthree\n");
  CHECK(lstat_of(log).st_ino == inode);
  CHECK(S_ISLNK(lstat_of(dir.at("to_fd")).st_mode));

  auto closed = write_output_file("/dev/fd/" + std::to_string(fd), "x", "--out");
  REQUIRE_FALSE(closed.ok());
  CHECK(closed.error().kind == ErrorKind::kBadInput);
  CHECK(closed.error().message ==
        "--out /dev/fd/" + std::to_string(fd) + ": " + std::generic_category().message(EBADF));
}

TEST_CASE("output_file: paths that cannot be outputs are refused and left as they were") {
  TempDir dir("output_file");
  fs::create_directory(dir.path() / "sub");
  auto directory = write_output_file(dir.at("sub"), "x", "--out");
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().kind == ErrorKind::kBadInput);
  CHECK(directory.error().message == "--out " + dir.at("sub") + ": is a directory");
  CHECK(fs::is_empty(dir.path() / "sub"));

  fs::create_directory_symlink("sub", dir.path() / "sub_link");
  auto through = write_output_file(dir.at("sub_link"), "x", "--html");
  REQUIRE_FALSE(through.ok());
  CHECK(through.error().message == "--html " + dir.at("sub_link") + ": is a directory");
  CHECK(S_ISLNK(lstat_of(dir.at("sub_link")).st_mode));

  auto missing = write_output_file(dir.at("none/plan.json"), "x", "plan file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::kBadInput);
  CHECK(missing.error().message ==
        "plan file " + dir.at("none/plan.json") + ": " + std::generic_category().message(ENOENT));
  CHECK(dir.names() == std::set<std::string>{"sub", "sub_link"});
}

TEST_CASE("output_file: a write cut short leaves the old file and no temporary file") {
  TempDir dir("output_file");
  const std::string path = dir.at("plan.json");
  put(path, "old plan", 0640);
  // A file-size limit below the new text: the write stops at the limit with EFBIG (SIGXFSZ
  // ignored, as dtplan does), and the rename never happens.
  SignalIgnored xfsz(SIGXFSZ);
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const Status cut = write_output_file(path, std::string(100000, 'p'), "--out");
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &old) == 0);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().kind == ErrorKind::kInternal);
  CHECK(cut.error().message == "--out " + path + ": " + std::generic_category().message(EFBIG));
  CHECK(file_text(path) == "old plan");
  CHECK((lstat_of(path).st_mode & 07777) == 0640);
  CHECK(dir.names() == std::set<std::string>{"plan.json"});
}

TEST_CASE("output_file: write_all reports a closed pipe") {
  SignalIgnored pipe_signal(SIGPIPE);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  CHECK_FALSE(write_all(fds[1], "ok"));
  ::close(fds[0]);
  CHECK(write_all(fds[1], "lost") == std::errc::broken_pipe);
  ::close(fds[1]);
}

}  // namespace
}  // namespace dtplan::core
