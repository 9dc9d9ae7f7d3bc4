// The protocol this implements is in sweep_mpi.h.
#include "sweep_mpi_runner.h"

#ifndef DTPLAN_WITH_MPI
#define DTPLAN_WITH_MPI 0
#endif

#if DTPLAN_WITH_MPI
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "replay/mpi/mpi_environment.h"
#include "sweep/sweep_io.h"

namespace dtplan::cli {

namespace {

enum Tag : int { kRequest = 1, kResult = 2, kGoodbye = 3, kWork = 4 };

// Between two probes for a message: from kFirstPause, doubled while none comes, up to kMaxPause:
// short against a point (0.05 s and more), and polling (MPI_Iprobe runs MPI's progress engine)
// takes next to no core from the workers.
constexpr auto kFirstPause = std::chrono::microseconds(50);
constexpr auto kMaxPause = std::chrono::microseconds(2000);

using replay::mpi_status;

// Waits for the next message to this rank from `source` (MPI_ANY_SOURCE: any) without spinning.
core::Result<MPI_Status> wait_message(int source) {
  for (auto pause = kFirstPause;; pause = std::min(pause * 2, kMaxPause)) {
    int flag = 0;
    MPI_Status st;
    DTPLAN_CHECK(mpi_status(MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st),
                            "sweep: MPI_Iprobe"));
    if (flag != 0) return st;
    std::this_thread::sleep_for(pause);
  }
}

core::Status send_int(std::int64_t value, int dest, int tag) {
  return mpi_status(MPI_Send(&value, 1, MPI_INT64_T, dest, tag, MPI_COMM_WORLD), "sweep: MPI_Send");
}

core::Result<std::int64_t> recv_int(int source, int tag) {
  std::int64_t value = 0;
  DTPLAN_CHECK(
      mpi_status(MPI_Recv(&value, 1, MPI_INT64_T, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 "sweep: MPI_Recv"));
  return value;
}

// "INDEX\n<outcome>" and back.
std::string result_message(std::size_t index, const sweep::PointOutcome& outcome) {
  return std::to_string(index) + "\n" + sweep::point_outcome_to_string(outcome);
}

core::Result<std::pair<std::size_t, sweep::PointOutcome>> parse_result(const std::string& text,
                                                                       std::size_t count) {
  const std::size_t nl = text.find('\n');
  std::size_t index = count;
  if (nl != std::string::npos && nl > 0) index = std::stoull(text.substr(0, nl));
  if (index >= count) return core::Error::internal("sweep: a result for no point: " + text);
  DTPLAN_TRY(sweep::PointOutcome o,
             sweep::point_outcome_from_string(std::string_view(text).substr(nl + 1), "sweep"));
  return std::make_pair(index, std::move(o));
}

// Rank 0's shared state: the points left to hand out, and the outcomes.
struct Board {
  std::mutex mutex;
  std::vector<std::size_t> order;
  std::size_t next = 0;
  std::size_t done = 0;
  std::vector<sweep::PointOutcome> outcomes;
  const sweep::RunPointsOptions* options = nullptr;

  std::optional<std::size_t> take() {
    std::lock_guard<std::mutex> lock(mutex);
    if (next >= order.size()) return std::nullopt;
    return order[next++];
  }
  void put(std::size_t index, sweep::PointOutcome outcome) {
    std::lock_guard<std::mutex> lock(mutex);
    outcomes[index] = std::move(outcome);
    ++done;
    if (options != nullptr && options->on_progress) {
      options->on_progress({done, order.size(), index, &outcomes[index]});
    }
  }
};

// Rank r's shared state between its main thread and its workers.
struct Mailbox {
  std::mutex mutex;
  std::condition_variable to_main;
  std::condition_variable to_workers;
  int wanting = 0;                 // workers waiting for an index
  std::deque<std::int64_t> given;  // indices for them, -1: stop
  std::deque<std::pair<std::size_t, sweep::PointOutcome>> results;
};

class MpiSweep : public SweepProcesses, public sweep::PointRunner {
 public:
  explicit MpiSweep(std::shared_ptr<replay::MpiEnvironment> env) : env_(std::move(env)) {}

  bool reports() const override { return env_->world_rank() == 0; }
  int size() const override { return env_->world_size(); }
  sweep::PointRunner* runner() override { return this; }
  std::int64_t total_tally() const override {
    return SweepProcesses::total_tally() + remote_tally_;
  }

  core::Result<std::vector<sweep::PointOutcome>> run(
      std::size_t count, const sweep::PointFunction& function,
      const sweep::RunPointsOptions& options) override {
    if (options.threads < 0) {
      return core::Error::bad_input("--threads: " + std::to_string(options.threads) +
                                    " is negative (0 means one per hardware thread)");
    }
    if (served_) return core::Error::internal("sweep: run() twice over processes");
    served_ = true;
    if (reports()) return serve(count, options, &function);
    DTPLAN_CHECK(work(count, function, options));
    return std::vector<sweep::PointOutcome>(count);
  }

  core::Result<int> finish(int code) override {
    if (!served_) {
      served_ = true;
      if (reports()) {
        sweep::RunPointsOptions none;
        DTPLAN_CHECK(serve(0, none, nullptr));
      } else {
        DTPLAN_CHECK(send_int(tally_ ? tally_() : 0, 0, kGoodbye));
      }
    }
    int value = code;
    DTPLAN_CHECK(mpi_status(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "sweep: MPI_Bcast"));
    return value;
  }

 private:
  // Rank 0: its workers (when `function` is given) and the other ranks take the points; the
  // main thread serves the others until each said goodbye.
  core::Result<std::vector<sweep::PointOutcome>> serve(std::size_t count,
                                                       const sweep::RunPointsOptions& o,
                                                       const sweep::PointFunction* function) {
    Board board;
    board.order = sweep::points_to_run(count, o);
    board.outcomes.resize(count);
    board.options = &o;
    std::vector<std::thread> pool;
    if (function != nullptr) {
      const std::int32_t threads = sweep::sweep_threads(o.threads, board.order.size());
      for (std::int32_t t = 0; t < threads; ++t) {
        pool.emplace_back([&board, function] {
          while (const std::optional<std::size_t> i = board.take()) {
            board.put(*i, sweep::evaluate_point(*function, *i));
          }
        });
      }
    }
    core::Status status = answer_ranks(board, count);
    for (std::thread& t : pool) t.join();
    if (!status.ok()) return status.error();
    return std::move(board.outcomes);
  }

  core::Status answer_ranks(Board& board, std::size_t count) {
    int goodbyes = 0;
    while (goodbyes < size() - 1) {
      DTPLAN_TRY(const MPI_Status st, wait_message(MPI_ANY_SOURCE));
      const int from = st.MPI_SOURCE;
      if (st.MPI_TAG == kRequest) {
        DTPLAN_CHECK(recv_int(from, kRequest));
        const std::optional<std::size_t> i = board.take();
        DTPLAN_CHECK(send_int(i ? static_cast<std::int64_t>(*i) : -1, from, kWork));
      } else if (st.MPI_TAG == kResult) {
        int bytes = 0;
        MPI_Get_count(&st, MPI_CHAR, &bytes);
        std::string text(static_cast<std::size_t>(bytes), '\0');
        DTPLAN_CHECK(mpi_status(MPI_Recv(text.data(), bytes, MPI_CHAR, from, kResult,
                                         MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                                "sweep: MPI_Recv"));
        DTPLAN_TRY(auto result, parse_result(text, count));
        board.put(result.first, std::move(result.second));
      } else if (st.MPI_TAG == kGoodbye) {
        DTPLAN_TRY(const std::int64_t tally, recv_int(from, kGoodbye));
        remote_tally_ += tally;
        ++goodbyes;
      } else {
        return core::Error::internal("sweep: unexpected MPI tag " + std::to_string(st.MPI_TAG) +
                                     " from rank " + std::to_string(from));
      }
    }
    return {};
  }

  // Rank r > 0: workers evaluate the points rank 0 hands out; the main thread talks to rank 0.
  core::Status work(std::size_t count, const sweep::PointFunction& function,
                    const sweep::RunPointsOptions& o) {
    Mailbox box;
    const std::int32_t threads = sweep::sweep_threads(o.threads, count);
    std::vector<std::thread> pool;
    for (std::int32_t t = 0; t < threads; ++t) {
      pool.emplace_back([&box, &function] {
        std::unique_lock<std::mutex> lock(box.mutex);
        for (;;) {
          ++box.wanting;
          box.to_main.notify_one();
          box.to_workers.wait(lock, [&] { return !box.given.empty(); });
          const std::int64_t i = box.given.front();
          box.given.pop_front();
          if (i < 0) return;
          lock.unlock();
          sweep::PointOutcome outcome =
              sweep::evaluate_point(function, static_cast<std::size_t>(i));
          lock.lock();
          box.results.emplace_back(static_cast<std::size_t>(i), std::move(outcome));
        }
      });
    }
    core::Status status = talk_to_root(box, threads);
    if (!status.ok()) {  // let the workers go: no more points
      std::lock_guard<std::mutex> lock(box.mutex);
      for (std::int32_t t = 0; t < threads; ++t) box.given.push_back(-1);
      box.to_workers.notify_all();
    }
    for (std::thread& t : pool) t.join();
    DTPLAN_CHECK(status);
    return send_int(tally_ ? tally_() : 0, 0, kGoodbye);
  }

  core::Status talk_to_root(Mailbox& box, std::int32_t threads) {
    std::int32_t stopped = 0;
    while (stopped < threads) {
      std::deque<std::pair<std::size_t, sweep::PointOutcome>> results;
      int wanting = 0;
      {
        std::unique_lock<std::mutex> lock(box.mutex);
        box.to_main.wait(lock, [&] { return box.wanting > 0 || !box.results.empty(); });
        results.swap(box.results);
        wanting = std::exchange(box.wanting, 0);
      }
      for (const auto& [index, outcome] : results) {
        const std::string text = result_message(index, outcome);
        DTPLAN_CHECK(mpi_status(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0,
                                         kResult, MPI_COMM_WORLD),
                                "sweep: MPI_Send"));
      }
      for (int w = 0; w < wanting; ++w) {
        DTPLAN_CHECK(send_int(0, 0, kRequest));
        DTPLAN_CHECK(wait_message(0));
        DTPLAN_TRY(const std::int64_t index, recv_int(0, kWork));
        if (index < 0) ++stopped;
        std::lock_guard<std::mutex> lock(box.mutex);
        box.given.push_back(index);
        box.to_workers.notify_one();
      }
    }
    return {};
  }

  std::shared_ptr<replay::MpiEnvironment> env_;
  bool served_ = false;
  std::int64_t remote_tally_ = 0;
};

}  // namespace

core::Result<std::unique_ptr<SweepProcesses>> start_mpi_sweep() {
  DTPLAN_TRY(std::shared_ptr<replay::MpiEnvironment> env, replay::MpiEnvironment::acquire());
  if (env->thread_level() < MPI_THREAD_FUNNELED) {
    return core::Error::internal("sweep: MPI grants no MPI_THREAD_FUNNELED (level " +
                                 std::to_string(env->thread_level()) + ")");
  }
  return std::unique_ptr<SweepProcesses>(std::make_unique<MpiSweep>(std::move(env)));
}

}  // namespace dtplan::cli

#endif  // DTPLAN_WITH_MPI
