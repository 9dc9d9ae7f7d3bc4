#pragma once
// The MPI side of SweepProcesses (sweep_mpi.h, where the protocol is): built with MPI only.

#include <memory>

#include "core/result.h"
#include "sweep_mpi.h"

namespace dtplan::cli {

// Joins the MPI world (replay::MpiEnvironment) as one rank of a sweep over processes.
core::Result<std::unique_ptr<SweepProcesses>> start_mpi_sweep();

}  // namespace dtplan::cli
