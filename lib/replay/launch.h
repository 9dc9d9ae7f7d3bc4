#pragma once
// How this process was launched: alone, or as one rank of a parallel job started by a launcher
// (Open MPI's mpirun, an MPICH/Intel MPI Hydra mpiexec, Slurm's srun, PyTorch's torchrun), read
// from the variables each launcher sets. The replay backends use it to choose a mode (the NCCL
// backend: one GPU per process when launched, all local GPUs otherwise) and to find the local
// rank that picks a GPU.
//
//   Variables, in order of precedence:
//     Open MPI  OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
//               OMPI_COMM_WORLD_LOCAL_SIZE
//     Hydra     PMI_SIZE, PMI_RANK, MPI_LOCALRANKID, MPI_LOCALNRANKS
//     srun      SLURM_STEP_NUM_TASKS (set inside a job step only, not in a batch script),
//               SLURM_PROCID, SLURM_LOCALID
//     torchrun  WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE (with MASTER_ADDR, MASTER_PORT)
//
//   detect_launch(env with OMPI_COMM_WORLD_SIZE=4, OMPI_COMM_WORLD_RANK=2) ==
//     LaunchInfo{Launcher::kOpenMpi, 4, 2, std::nullopt, std::nullopt}

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace dtplan::replay {

enum class Launcher : std::uint8_t { kNone, kOpenMpi, kHydra, kSlurm, kTorchrun };

// "none", "mpirun (Open MPI)", "mpiexec (Hydra)", "srun", "torchrun".
std::string_view launcher_name(Launcher launcher);

// True for the launchers whose processes MPI_Init joins into one world (Open MPI, Hydra, srun).
constexpr bool mpi_launcher(Launcher launcher) {
  return launcher == Launcher::kOpenMpi || launcher == Launcher::kHydra ||
         launcher == Launcher::kSlurm;
}

struct LaunchInfo {
  Launcher launcher = Launcher::kNone;
  std::int64_t world_size = 1;
  std::int64_t rank = 0;
  std::optional<std::int64_t> local_rank;  // the rank among the processes on this node
  std::optional<std::int64_t> local_size;  // the processes on this node
  bool operator==(const LaunchInfo&) const = default;
};

// Reads one environment variable (nullopt when unset).
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The launch as `env` describes it: the first launcher whose size variable is set; kNone (world
// 1, rank 0, local rank 0 of 1) when none is. Errors (kBadInput, naming the variable and its
// text): a value that is not an integer, a size below 1, a rank outside [0, size), a local rank
// outside [0, local size), or a launcher's size set without its rank.
core::Result<LaunchInfo> detect_launch(const EnvLookup& env);

// detect_launch over this process's environment (std::getenv).
core::Result<LaunchInfo> detect_launch();

}  // namespace dtplan::replay
