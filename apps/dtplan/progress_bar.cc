#include "progress_bar.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dtplan::cli {

namespace {
constexpr std::size_t kBarWidth = 30;
}

bool ProgressBar::wanted(bool json, bool quiet) {
  if (json || quiet || isatty(STDERR_FILENO) == 0) return false;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && ci[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

std::string ProgressBar::line(std::string_view label, std::size_t done, std::size_t total,
                              std::string_view text, std::size_t width) {
  const std::size_t filled = total == 0 ? width : done * width / total;
  std::string out(label);
  out += " [";
  out.append(filled, '#');
  out.append(width - filled, '.');
  out += "] " + std::to_string(done) + "/" + std::to_string(total);
  if (!text.empty()) out += "  " + std::string(text);
  return out;
}

void ProgressBar::update(std::size_t done, std::size_t total, std::string_view text) {
  if (!enabled_) return;
  const std::string l = line(label_, done, total, text, kBarWidth);
  std::string pad(drawn_ > l.size() ? drawn_ - l.size() : 0, ' ');
  std::fprintf(stderr, "\r%s%s", l.c_str(), pad.c_str());
  std::fflush(stderr);
  drawn_ = l.size();
}

void ProgressBar::finish() {
  if (!enabled_ || drawn_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(drawn_, ' ').c_str());
  std::fflush(stderr);
  drawn_ = 0;
  enabled_ = false;
}

}  // namespace dtplan::cli
