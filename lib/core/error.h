#pragma once
// Error: what went wrong, as a kind (which maps to the CLI exit code) and a message that names the
// offending input and the reason. The library never prints or exits; it returns these.

#include <cstdint>
#include <string>
#include <string_view>

namespace dtplan::core {

// Values equal the CLI exit codes of DESIGN.md.
enum class ErrorKind : std::uint8_t {
  kInternal = 1,        // a bug or an environment failure (I/O)
  kBadInput = 2,        // malformed or inconsistent input, bad usage
  kUnsupported = 3,     // well-formed but unsupported or infeasible request
  kBackendMissing = 4,  // a backend that was not built in (e.g. NCCL without CUDA)
};

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;

  static Error bad_input(std::string message) { return {ErrorKind::kBadInput, std::move(message)}; }
  static Error unsupported(std::string message) {
    return {ErrorKind::kUnsupported, std::move(message)};
  }
  static Error internal(std::string message) { return {ErrorKind::kInternal, std::move(message)}; }
  static Error backend_missing(std::string message) {
    return {ErrorKind::kBackendMissing, std::move(message)};
  }

  // Prefixes the message with where it happened: `"--mesh: " + message`.
  [[nodiscard]] Error with_context(std::string_view context) const {
    return {kind, std::string(context) + ": " + message};
  }

  bool operator==(const Error&) const = default;
};

// The process exit code for an error kind.
constexpr int exit_code(ErrorKind kind) { return static_cast<int>(kind); }

}  // namespace dtplan::core
