// run_until: a child's result comes back whole; a child still running at the deadline is killed
// and reaped, and the call returns soon after the deadline; a child's exception is an error.

#include "core/child_process.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace dtplan::core {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

TEST_CASE("run_until: the child's result, whole, also when it is larger than a pipe's buffer") {
  const std::string big(1 << 20, 'x');
  auto r = run_until(Clock::now() + seconds(60), [&] { return big + "end"; });
  REQUIRE(r.ok());
  REQUIRE(r->has_value());
  CHECK(**r == big + "end");
  auto empty = run_until(Clock::now() + seconds(60), [] { return std::string(); });
  REQUIRE(empty.ok());
  CHECK(*empty == std::optional<std::string>(""));
}

TEST_CASE("run_until: work that outlives the deadline is killed, and the call ends at it") {
  const auto start = Clock::now();
  auto r = run_until(start + std::chrono::milliseconds(200), [] {
    std::this_thread::sleep_for(seconds(30));
    return std::string("too late");
  });
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
  CHECK(waited >= 0.2);
  CHECK(waited < 10);  // not the 30 s the child would take
}

TEST_CASE("run_until: a passed deadline runs nothing to completion") {
  auto r = run_until(Clock::now() - seconds(1), [] {
    std::this_thread::sleep_for(seconds(30));
    return std::string("never");
  });
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
}

TEST_CASE("run_until: an exception or a crash in the child is an internal error") {
  auto thrown = run_until(Clock::now() + seconds(60),
                          []() -> std::string { throw std::runtime_error("boom"); });
  REQUIRE_FALSE(thrown.ok());
  CHECK(thrown.error().kind == ErrorKind::kInternal);
  CHECK(thrown.error().message == "boom");
  auto died = run_until(Clock::now() + seconds(60), []() -> std::string { ::_exit(3); });
  REQUIRE_FALSE(died.ok());
  CHECK(died.error().message == "the child process ended without a result");
}

}  // namespace
}  // namespace dtplan::core
