#pragma once
// SweepProcesses: how `dtplan sweep` spreads its points over processes. Launched by an MPI
// launcher (mpirun, mpiexec, srun; replay/launch.h) with more than one process, every rank runs
// the same command line, joins the MPI world, and the ranks share the points; otherwise (or in a
// build without MPI, DTPLAN_WITH_MPI) it is one process and run_sweep's own threads.
//
//   auto procs = SweepProcesses::start().value();
//   sweep::SweepOptions so;  so.runner = procs->runner();   // nullptr alone: a ThreadRunner
//   auto result = sweep::run_sweep(setup, candidates, evaluator, so);
//   int code = procs->reports() ? write_reports(result) : 0;   // rank 0 only
//   return procs->finish(code);                                 // rank 0's code, on every rank
//
// Protocol (MPI_COMM_WORLD, the main thread only: MPI is initialised MPI_THREAD_FUNNELED):
//   Rank 0 coordinates and works. Its worker threads (--threads) and the other ranks take the
//   points from one list, in run_sweep's order without the resumed ones, one point at a time
//   under a mutex, so a rank that finishes early takes more (dynamic load balancing: a plan
//   takes 0.05 to 10 s, a static split would idle). Its main thread serves the others:
//     rank r -> 0  kRequest  (no data)      0 -> r: kWork, the next index (int64), or -1: none left
//     rank r -> 0  kResult   "INDEX\n" + point_outcome_to_string(outcome) (sweep_io.h)
//     rank r -> 0  kGoodbye  int64: the rank's tally (the --plans files it wrote); no more
//                            messages from r
//   Rank 0 receives with MPI_Iprobe(MPI_ANY_SOURCE) and sleeps of 50 us to 2 ms between probes (a
//   blocking receive would spin and take a core from the workers). It returns from run() once every
//   point is done and every other rank said goodbye; outcomes from a rank arrive before its goodbye
//   (MPI keeps one sender's messages in order). A point's error travels back as its outcome. On
//   rank r > 0 the worker threads (--threads per rank) tell the main thread when they want a point
//   or have an outcome; the main thread sends each outcome, asks rank 0 for a point per idle
//   thread, and once every thread got -1 says goodbye. Its outcomes vector is all default: only
//   rank 0 has the results, and only rank 0 calls on_progress (the progress bar, --resume).
//   finish(code): a rank that never reached run() (an error before it) still answers (rank 0:
//   serves requests with -1 until every goodbye; rank r: says goodbye), then rank 0's code is
//   broadcast (MPI_Bcast) and every rank returns it.

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "core/result.h"
#include "sweep/point_runner.h"

namespace dtplan::cli {

class SweepProcesses {
 public:
  // One process, or this rank of an MPI launch of more than one. Errors: launch variables that
  // do not read (replay::detect_launch), MPI that does not initialise.
  static core::Result<std::unique_ptr<SweepProcesses>> start();
  virtual ~SweepProcesses() = default;

  // Whether this process writes the output and reports (rank 0, or the only process).
  [[nodiscard]] virtual bool reports() const { return true; }
  [[nodiscard]] virtual int size() const { return 1; }
  // The runner for run_sweep; nullptr for one process (run_sweep's ThreadRunner).
  virtual sweep::PointRunner* runner() { return nullptr; }
  // A count each process adds to (read when it is done: the plans it wrote); on rank 0 after
  // run(), total_tally() is the sum over the ranks.
  virtual void set_tally(std::function<std::int64_t()> tally) { tally_ = std::move(tally); }
  [[nodiscard]] virtual std::int64_t total_tally() const { return tally_ ? tally_() : 0; }
  // Ends the sweep on every process; returns rank 0's `code`. Call it once, on every process.
  virtual core::Result<int> finish(int code) { return code; }
  // report(command, error) on the reporting process; the exit code of its kind everywhere.
  [[nodiscard]] int report(std::string_view command, const core::Error& error) const;

 protected:
  std::function<std::int64_t()> tally_;
};

}  // namespace dtplan::cli
