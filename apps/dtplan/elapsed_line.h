#pragma once
// A one-line "still working" indicator on stderr for subcommands that may run for seconds
// (`plan`, `simulate`, `replay`): from `delay` after it starts, a background thread redraws
// "<label>: 3.4 s" five times a second until the work ends, then erases the line. Drawn only
// where ProgressBar::wanted says a person watches (a terminal, not CI, not --json, not --quiet),
// so pipes, files and logs never see it. DTPLAN_PROGRESS_DELAY_S overrides the delay (tests).
// The line of the process is ended before anything is written to stdout or an error to stderr
// (output.cc calls end_progress_line), so it never mixes with a command's output.
//
//   ElapsedLine line(ProgressBar::wanted(o.json, o.quiet), "plan llama3-8b on 8x8");
//   ... long work ...
//   line.finish();   // also done by the destructor

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace dtplan::cli {

// Ends the drawn line of this process, if any (the ElapsedLine alive now).
void end_progress_line();

class ElapsedLine {
 public:
  ElapsedLine(bool enabled, std::string label);
  ~ElapsedLine() { finish(); }
  ElapsedLine(const ElapsedLine&) = delete;
  ElapsedLine& operator=(const ElapsedLine&) = delete;

  // Stops the thread and erases the line (once; later calls do nothing).
  void finish();

  // The text drawn at `seconds` elapsed, without the leading "\r" (tested on its own).
  static std::string text(const std::string& label, double seconds);

 private:
  void run();

  std::string label_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::duration<double> delay_{2.0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::size_t drawn_ = 0;
  std::thread thread_;
};

}  // namespace dtplan::cli
