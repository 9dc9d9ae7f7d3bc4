#pragma once
// The replay backends this build has and how to open them. This header is the same in every
// build; what is missing answers kBackendMissing (exit code 4) with what to install or
// configure, so that callers (the replay executor, `dtplan replay`) need no #if:
//   MPI  (DTPLAN_WITH_MPI, when CMake finds MPI):  "MPI backend not built: install
//        libopenmpi-dev and reconfigure"
//   NCCL (DTPLAN_WITH_NCCL, with CUDA 13 + NCCL): "NCCL backend not built: ..."; built but on a
//        machine without a GPU: "no CUDA device: cudaGetDeviceCount returned 35 (...)".
//
//   auto pg = open_mpi_group();            // under mpirun: one rank per process
//   if (!pg.ok()) return report(pg.error());
//
// NCCL modes: launched by an MPI launcher (mpirun, mpiexec, srun; launch.h), one process per
// GPU, the NCCL id bootstrapped over MPI and the GPU picked by the local rank; launched by none,
// one process drives the local GPUs (ncclCommInitAll, group calls), one rank per GPU. torchrun's
// variables alone (no MPI launcher) are kUnsupported: dtplan has no TCP store to bootstrap NCCL
// from MASTER_ADDR/MASTER_PORT; launch with mpirun or srun instead.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/result.h"
#include "replay/replay_group.h"
#include "replay/timing.h"

namespace dtplan::replay {

[[nodiscard]] bool mpi_backend_built();
[[nodiscard]] bool nccl_backend_built();

// The MPI backend over MPI_COMM_WORLD (initialising MPI; finalised when the group and every other
// user of the MPI environment are gone). A process not started by a launcher is a world of one.
// MPI can be initialised once per process: open the group once and keep it while the process
// replays (an open after MPI was finalised fails with kInternal).
core::Result<std::unique_ptr<ReplayGroup>> open_mpi_group();

enum class NcclMode : std::uint8_t {
  kAuto,           // kPerProcess under an MPI launcher, else kSingleProcess
  kPerProcess,     // one GPU per process, bootstrapped over MPI
  kSingleProcess,  // this process drives `devices` (all local GPUs when empty)
};

struct NcclGroupOptions {
  NcclMode mode = NcclMode::kAuto;
  // kSingleProcess: the GPUs, group rank i on devices[i] (empty: 0 .. count-1). kPerProcess: the
  // GPU of local rank l is devices[l] (empty: l).
  std::vector<int> devices;
  // How long a collective may run before every communicator is aborted and the call fails.
  double timeout_s = 300;
};

// The NCCL backend. Errors: kBackendMissing (not built, no GPU, per-process mode without the MPI
// backend), kUnsupported (torchrun variables only, more local ranks than GPUs, a repeated or
// missing device), kBadInput (timeout_s <= 0), kInternal (CUDA/NCCL failures).
core::Result<std::unique_ptr<ReplayGroup>> open_nccl_group(const NcclGroupOptions& options = {});

// The number of CUDA devices; kBackendMissing without the NCCL build or without a device.
core::Result<int> cuda_devices();

struct GemmOptions {
  int device = 0;
  int warmup_iters = 3;
  int iters = 10;
};

// Times C = A x B (m x k times k x n, column-major, cublasGemmEx with f32 accumulation) on one
// GPU; dtype bf16, f16 or f32 (inputs and output in the dtype). Each iteration is timed with
// CUDA events; the result is their median, min and max in us.
// Errors: kBackendMissing (no NCCL/CUDA build, no GPU), kBadInput (m, n, k outside
// [1, 2^31-1], bad iteration counts or device), kUnsupported (another dtype), kInternal.
core::Result<TimingStats> time_gemm(std::int64_t m, std::int64_t n, std::int64_t k,
                                    core::DType dtype, const GemmOptions& options = {});

}  // namespace dtplan::replay
