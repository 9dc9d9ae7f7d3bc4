#include "replay/backends.h"

// CMake defines these to 1 for the backends it builds (lib/CMakeLists.txt).
#ifndef DTPLAN_WITH_MPI
#define DTPLAN_WITH_MPI 0
#endif
#ifndef DTPLAN_WITH_NCCL
#define DTPLAN_WITH_NCCL 0
#endif

#if DTPLAN_WITH_MPI
#include "replay/mpi/mpi_process_group.h"
#endif
#if DTPLAN_WITH_NCCL
#include "replay/nccl/cuda_status.h"
#include "replay/nccl/gemm_timer.h"
#include "replay/nccl/nccl_process_group.h"
#endif

namespace dtplan::replay {

namespace {

[[maybe_unused]] core::Error nccl_missing() {
  return core::Error::backend_missing(
      "NCCL backend not built: configure with -DDTPLAN_WITH_NCCL=ON (or AUTO) on a machine with "
      "CUDA 13 and NCCL under /usr/local/cuda (CUDAToolkit_ROOT)");
}

}  // namespace

bool mpi_backend_built() { return DTPLAN_WITH_MPI != 0; }

bool nccl_backend_built() { return DTPLAN_WITH_NCCL != 0; }

core::Result<std::unique_ptr<ReplayGroup>> open_mpi_group() {
#if DTPLAN_WITH_MPI
  DTPLAN_TRY(std::shared_ptr<MpiEnvironment> env, MpiEnvironment::acquire());
  DTPLAN_TRY(std::unique_ptr<MpiProcessGroup> pg, MpiProcessGroup::create(std::move(env)));
  return std::unique_ptr<ReplayGroup>(std::move(pg));
#else
  return core::Error::backend_missing(
      "MPI backend not built: install libopenmpi-dev (and openmpi-bin for mpirun) and "
      "reconfigure");
#endif
}

core::Result<std::unique_ptr<ReplayGroup>> open_nccl_group(const NcclGroupOptions& options) {
#if DTPLAN_WITH_NCCL
  DTPLAN_TRY(std::unique_ptr<NcclProcessGroup> pg, NcclProcessGroup::create(options));
  return std::unique_ptr<ReplayGroup>(std::move(pg));
#else
  (void)options;
  return nccl_missing();
#endif
}

core::Result<int> cuda_devices() {
#if DTPLAN_WITH_NCCL
  return cuda_device_count();
#else
  return nccl_missing();
#endif
}

core::Result<TimingStats> time_gemm(std::int64_t m, std::int64_t n, std::int64_t k,
                                    core::DType dtype, const GemmOptions& options) {
#if DTPLAN_WITH_NCCL
  return gemm_time(m, n, k, dtype, options);
#else
  (void)m, (void)n, (void)k, (void)dtype, (void)options;
  return nccl_missing();
#endif
}

}  // namespace dtplan::replay
