#include "sweep_mpi.h"

#include "output.h"
#include "replay/launch.h"

#ifndef DTPLAN_WITH_MPI
#define DTPLAN_WITH_MPI 0
#endif

#if DTPLAN_WITH_MPI
#include "sweep_mpi_runner.h"
#endif

namespace dtplan::cli {

int SweepProcesses::report(std::string_view command, const core::Error& error) const {
  if (reports()) return cli::report(command, error);
  return core::exit_code(error.kind);
}

core::Result<std::unique_ptr<SweepProcesses>> SweepProcesses::start() {
  DTPLAN_TRY(const replay::LaunchInfo launch, replay::detect_launch());
#if DTPLAN_WITH_MPI
  if (replay::mpi_launcher(launch.launcher) && launch.world_size > 1) return start_mpi_sweep();
#endif
  return std::make_unique<SweepProcesses>();
}

}  // namespace dtplan::cli
