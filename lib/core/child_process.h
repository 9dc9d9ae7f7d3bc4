#pragma once
// Work that must end by a wall-clock deadline even where it cannot be interrupted (a third-party
// solver's presolve, say): it runs in a forked child process, which the parent kills once the
// deadline passes. The child's result travels back as bytes through a pipe.
//
//   auto r = core::run_until(deadline, [] { return std::string("done"); });
//   // *r == "done" when the child finished in time; nullopt when it was killed at the deadline.
//
// The child is a copy of the parent (fork): it sees every object the parent had, writes only its
// result, and ends with _exit (no destructors, no atexit handlers, no stdio flush of the parent's
// buffers). `work` must not print and must not rely on other threads of the parent, which do not
// exist in the child.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/result.h"

namespace dtplan::core {

// Runs `work` in a child process and returns what it returned, or nullopt when `deadline` passed
// first (the child is then killed and reaped).
// @post errors: kInternal when the child cannot be started, dies without a whole result or
// throws (the exception's message).
Result<std::optional<std::string>> run_until(std::chrono::steady_clock::time_point deadline,
                                             const std::function<std::string()>& work);

}  // namespace dtplan::core
