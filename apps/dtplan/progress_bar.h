#pragma once
// A one-line progress bar on stderr for long subcommands (`dtplan sweep`), drawn only where a
// person watches: stderr is a terminal, $CI is unset or empty, $TERM is not "dumb", and the
// output is neither --json nor --quiet. In pipes, CI logs and files it draws nothing, so logs stay
// clean.
//
//   ProgressBar bar(ProgressBar::wanted(json, quiet), "sweep");
//   bar.update(12, 45, "2x4x128");   // "\rsweep [#######.............]  12/45  2x4x128"
//   bar.finish();                    // erases the line

#include <cstddef>
#include <string>
#include <string_view>

namespace dtplan::cli {

class ProgressBar {
 public:
  // Whether to draw: stderr is a TTY, not in CI, TERM is not "dumb", not `json`, not `quiet`.
  static bool wanted(bool json, bool quiet);

  ProgressBar(bool enabled, std::string label) : enabled_(enabled), label_(std::move(label)) {}
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Redraws the bar at done/total with a short text after it.
  void update(std::size_t done, std::size_t total, std::string_view text);
  // Erases the bar (once; later calls do nothing).
  void finish();

  // The line update() draws, without the leading "\r" (tested on its own).
  static std::string line(std::string_view label, std::size_t done, std::size_t total,
                          std::string_view text, std::size_t width);

 private:
  bool enabled_;
  std::string label_;
  std::size_t drawn_ = 0;  // length of the last line drawn
};

}  // namespace dtplan::cli
