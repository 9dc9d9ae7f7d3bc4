#include "core/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>

#include "core/output_file.h"

namespace dtplan::core {

namespace {

using Clock = std::chrono::steady_clock;

// The child's side: one status byte ('+' result, '!' exception message) and the text.
[[noreturn]] void child_main(int fd, const std::function<std::string()>& work) {
  std::string out;
  try {
    out = "+" + work();
  } catch (const std::exception& e) {
    out = std::string("!") + e.what();
  } catch (...) {
    out = "!unknown exception";
  }
  ::_exit(write_all(fd, out) ? 1 : 0);
}

// Milliseconds until `deadline` for poll(), at least 0.
int poll_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1000 * 1000));
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Result<std::optional<std::string>> run_until(Clock::time_point deadline,
                                             const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) {
    return Error::internal(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Error::internal(std::string("cannot start a child process: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], work);
  }
  ::close(fds[1]);
  std::string got;
  char buffer[1 << 16];
  bool ended = false;
  while (!ended) {
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, poll_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {  // the deadline passed
      ::close(fds[0]);
      kill_and_reap(pid);
      return std::optional<std::string>();
    }
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ended = true;
    if (n > 0) got.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!clean || got.empty()) return Error::internal("the child process ended without a result");
  if (got[0] == '!') return Error::internal(got.substr(1));
  return std::optional<std::string>(got.substr(1));
}

}  // namespace dtplan::core
