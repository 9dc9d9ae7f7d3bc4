#include "sweep/point_runner.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>

namespace dtplan::sweep {

std::vector<std::size_t> points_to_run(std::size_t count, const RunPointsOptions& options) {
  std::vector<std::size_t> order = options.order;
  if (order.empty()) {
    order.resize(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
  }
  std::erase_if(order, [&](std::size_t i) {
    return i >= count || (i < options.skip.size() && options.skip[i]);
  });
  return order;
}

PointOutcome evaluate_point(const PointFunction& function, std::size_t index) {
  PointOutcome out;
  auto e = function(index);
  if (e.ok()) {
    out.evaluation = std::move(*e);
  } else {
    out.error = e.error().message;
    if (out.error.empty()) out.error = "failed (no message)";
  }
  return out;
}

std::int32_t sweep_threads(std::int32_t requested, std::size_t points) {
  std::int64_t n = requested;
  if (n <= 0) n = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  n = std::min<std::int64_t>(n, static_cast<std::int64_t>(std::max<std::size_t>(points, 1)));
  return static_cast<std::int32_t>(n);
}

core::Result<std::vector<PointOutcome>> ThreadRunner::run(std::size_t count,
                                                          const PointFunction& function,
                                                          const RunPointsOptions& options) {
  if (options.threads < 0) {
    return core::Error::bad_input("--threads: " + std::to_string(options.threads) +
                                  " is negative (0 means one per hardware thread)");
  }
  const std::vector<std::size_t> order = points_to_run(count, options);
  std::vector<PointOutcome> outcomes(count);
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t done = 0;
  const auto work = [&] {
    for (std::size_t k = next.fetch_add(1); k < order.size(); k = next.fetch_add(1)) {
      const std::size_t i = order[k];
      outcomes[i] = evaluate_point(function, i);
      if (options.on_progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++done;
        options.on_progress({done, order.size(), i, &outcomes[i]});
      }
    }
  };
  const std::int32_t threads = sweep_threads(options.threads, order.size());
  if (threads == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (std::int32_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }
  return outcomes;
}

}  // namespace dtplan::sweep
