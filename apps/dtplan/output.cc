#include "output.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <system_error>

#include "core/output_file.h"
#include "core/strings.h"
#include "elapsed_line.h"

namespace dtplan::cli {

namespace {

// The first error writing stdout; once there is one, later output is dropped (it could only be
// partial) until finish_stdout() reports it. Commands print from their main thread only.
std::error_code stdout_error;

void write_stdout(std::string_view text) {
  end_progress_line();
  if (!stdout_error) stdout_error = core::write_all(STDOUT_FILENO, text);
}

}  // namespace

int report(std::string_view command, const core::Error& error) {
  // One line whatever the message quotes from the input (a name with a newline or an escape).
  end_progress_line();
  std::cerr << "dtplan " << command << ": error: " << core::escape_controls(error.message) << "\n";
  return core::exit_code(error.kind);
}

void print_json(const Json& doc) { write_stdout(doc.dump(2) + "\n"); }

void print_text(std::string_view text) { write_stdout(text); }

void prepare_output() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
}

int finish_stdout(std::string_view command, int code) {
  errno = 0;
  std::cout.flush();
  if ((std::fflush(stdout) != 0 || std::ferror(stdout) != 0) && !stdout_error) {
    stdout_error = std::error_code(errno != 0 ? errno : EIO, std::generic_category());
  }
  if (!stdout_error || stdout_error == std::errc::broken_pipe) return code;
  std::cerr << "dtplan" << (command.empty() ? "" : " ") << command
            << ": error: stdout: " << stdout_error.message() << "\n";
  return code == 0 ? core::exit_code(core::ErrorKind::kInternal) : code;
}

void add_json_flag(CLI::App& app, bool& target) {
  app.add_flag("--json", target, "Print one JSON document on stdout instead of tables");
}

void add_quiet_flag(CLI::App& app, bool& target) {
  app.add_flag("--quiet", target,
               "Draw no progress line on stderr (drawn only when stderr is a terminal)");
}

}  // namespace dtplan::cli
