#include "elapsed_line.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "core/units.h"

namespace dtplan::cli {

namespace {

// The delay before the first draw: DTPLAN_PROGRESS_DELAY_S when it is a number >= 0, else 2 s.
std::chrono::duration<double> start_delay() {
  const char* env = std::getenv("DTPLAN_PROGRESS_DELAY_S");
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v >= 0) return std::chrono::duration<double>(v);
  }
  return std::chrono::duration<double>(2.0);
}

// The line drawing now (one per process: commands draw from their main thread).
std::atomic<ElapsedLine*> active{nullptr};

}  // namespace

void end_progress_line() {
  if (ElapsedLine* line = active.exchange(nullptr)) line->finish();
}

ElapsedLine::ElapsedLine(bool enabled, std::string label)
    : label_(std::move(label)), start_(std::chrono::steady_clock::now()), delay_(start_delay()) {
  if (!enabled) return;
  thread_ = std::thread([this] { run(); });
  active.store(this);
}

std::string ElapsedLine::text(const std::string& label, double seconds) {
  return label + ": " + core::format_fixed(seconds, 1) + " s";
}

void ElapsedLine::run() {
  std::unique_lock lock(mutex_);
  if (wake_.wait_until(lock, start_ + std::chrono::duration_cast<std::chrono::nanoseconds>(delay_),
                       [this] { return stop_; })) {
    return;
  }
  while (!stop_) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    const std::string line = text(label_, elapsed.count());
    const std::string pad(drawn_ > line.size() ? drawn_ - line.size() : 0, ' ');
    std::fprintf(stderr, "\r%s%s", line.c_str(), pad.c_str());
    std::fflush(stderr);
    drawn_ = line.size();
    wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; });
  }
  if (drawn_ > 0) {
    std::fprintf(stderr, "\r%s\r", std::string(drawn_, ' ').c_str());
    std::fflush(stderr);
  }
}

void ElapsedLine::finish() {
  ElapsedLine* self = this;
  active.compare_exchange_strong(self, nullptr);
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace dtplan::cli
