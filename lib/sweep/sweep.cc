#include "sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "core/strings.h"
#include "sweep/ranking.h"

namespace dtplan::sweep {

namespace {

// The rows in candidate order, filled by the workers; `failed` holds the first failing index.
struct Shared {
  const SweepSetup& setup;
  const std::vector<MeshCandidate>& candidates;
  const MeshEvaluator& evaluator;
  const SweepOptions& options;
  std::vector<std::size_t> order;  // the candidates in the order the workers take them
  std::vector<std::optional<SweepRow>> rows;
  std::vector<std::optional<core::Error>> errors;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_failure;
  std::mutex progress_mutex;
  std::size_t done = 0;
};

core::Result<SweepRow> evaluate_one(const Shared& s, const MeshCandidate& c) {
  const std::string label = candidate_label(c);
  SweepRow row{c, {}, true, tp_within_node(c, s.setup.gpus_per_node)};
  auto e = s.evaluator.evaluate(c);
  if (!e.ok()) {
    if (e.error().kind != core::ErrorKind::kUnsupported) return e.error().with_context(label);
    row.evaluation.feasible = false;
    row.evaluation.note = e.error().message;
    return row;
  }
  DTPLAN_CHECK(check_evaluation(*e, label));
  row.evaluation = std::move(*e);
  row.fits_memory = s.setup.memory_limit_bytes == 0 ||
                    row.evaluation.memory_bytes_per_rank <= s.setup.memory_limit_bytes;
  return row;
}

void work(Shared& s) {
  for (;;) {
    const std::size_t k = s.next.fetch_add(1);
    if (k >= s.order.size()) return;
    const std::size_t i = s.order[k];
    if (i > s.first_failure.load()) continue;  // every candidate before a failure still runs
    auto row = evaluate_one(s, s.candidates[i]);
    if (row.ok()) {
      s.rows[i] = std::move(*row);
    } else {
      s.errors[i] = row.error();
      std::size_t seen = s.first_failure.load();
      while (i < seen && !s.first_failure.compare_exchange_weak(seen, i)) {
      }
    }
    if (s.options.on_progress) {
      std::lock_guard<std::mutex> lock(s.progress_mutex);
      ++s.done;
      s.options.on_progress({s.done, s.candidates.size(), &s.candidates[i]});
    }
  }
}

}  // namespace

std::int32_t sweep_threads(std::int32_t requested, std::size_t candidates) {
  std::int64_t n = requested;
  if (n <= 0) n = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  n = std::min<std::int64_t>(n, static_cast<std::int64_t>(std::max<std::size_t>(candidates, 1)));
  return static_cast<std::int32_t>(n);
}

std::string candidate_label(const MeshCandidate& candidate) {
  return "mesh " + candidate_text(candidate);
}

core::Result<SweepResult> run_sweep(const SweepSetup& setup,
                                    const std::vector<MeshCandidate>& candidates,
                                    const MeshEvaluator& evaluator, const SweepOptions& options) {
  if (options.threads < 0) {
    return core::Error::bad_input("--threads: " + std::to_string(options.threads) +
                                  " is negative (0 means one per hardware thread)");
  }
  Shared s{setup, candidates, evaluator, options, {}, {}, {}, {}, {}, {}, 0};
  // Meshes of more dims first (they have more strategies per op and take longer to plan), so
  // that the last ones the threads take are short and no thread idles long at the end. The rows
  // keep the candidate order whatever the order they are evaluated in.
  s.order.resize(candidates.size());
  std::iota(s.order.begin(), s.order.end(), std::size_t{0});
  std::stable_sort(s.order.begin(), s.order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].shape.size() > candidates[b].shape.size();
  });
  s.rows.resize(candidates.size());
  s.errors.resize(candidates.size());
  s.first_failure.store(candidates.size());
  const std::int32_t threads = sweep_threads(options.threads, candidates.size());
  if (threads == 1) {
    work(s);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (std::int32_t t = 0; t < threads; ++t) pool.emplace_back([&s] { work(s); });
    for (std::thread& t : pool) t.join();
  }
  const std::size_t failed = s.first_failure.load();
  if (failed < candidates.size()) return *s.errors[failed];

  SweepResult result{setup, {}};
  result.rows.reserve(candidates.size());
  for (std::optional<SweepRow>& row : s.rows) result.rows.push_back(std::move(*row));
  rank_rows(result.rows);
  return result;
}

}  // namespace dtplan::sweep
