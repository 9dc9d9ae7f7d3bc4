#include "replay/backends.h"

#include <doctest/doctest.h>

#include <string>

namespace dtplan::replay {
namespace {

using core::ErrorKind;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The path CI takes: NCCL built (or not) on a machine without a GPU. Skipped where a GPU works.
TEST_CASE("backends: NCCL without a GPU (or without the build) is a missing backend") {
  const auto devices = cuda_devices();
  if (devices.ok()) {
    MESSAGE("a CUDA device is present; the no-GPU path is not tested here");
    return;
  }
  CHECK(devices.error().kind == ErrorKind::kBackendMissing);
  auto pg = open_nccl_group();
  REQUIRE_FALSE(pg.ok());
  CHECK(pg.error().kind == ErrorKind::kBackendMissing);
  auto gemm = time_gemm(128, 128, 128, core::DType::kBF16);
  CHECK(gemm.error().kind == ErrorKind::kBackendMissing);
  if (!nccl_backend_built()) {
    CHECK(contains(pg.error().message, "NCCL backend not built"));
    CHECK(pg.error() == devices.error());
    return;
  }
  // Built: the message says what is missing, e.g. (no driver) "NCCL backend: no CUDA device:
  // cudaGetDeviceCount returned 35 (CUDA driver not found or older than the CUDA runtime; ...)".
  CHECK(pg.error().message == "NCCL backend: " + devices.error().message);
  CHECK(contains(devices.error().message, "no CUDA device: cudaGetDeviceCount returned "));
  if (contains(devices.error().message, "returned 35 ")) {
    CHECK(contains(devices.error().message,
                   "returned 35 (CUDA driver not found or older than the CUDA runtime; "
                   "cudaErrorInsufficientDriver)"));
  }
  CHECK(gemm.error().message == "time_gemm: " + devices.error().message);
}

TEST_CASE("backends: argument errors come before the device probe") {
  if (!nccl_backend_built()) return;  // everything is kBackendMissing then
  CHECK(time_gemm(0, 128, 128, core::DType::kBF16).error().kind == ErrorKind::kBadInput);
  CHECK(time_gemm(1, 1, std::int64_t{1} << 31, core::DType::kF32).error().kind ==
        ErrorKind::kBadInput);
  CHECK(time_gemm(8, 8, 8, core::DType::kI32).error().kind == ErrorKind::kUnsupported);
  CHECK(time_gemm(8, 8, 8, core::DType::kF32, {.iters = 0}).error().kind == ErrorKind::kBadInput);
  NcclGroupOptions no_time;
  no_time.timeout_s = 0;
  CHECK(open_nccl_group(no_time).error().kind == ErrorKind::kBadInput);
}

TEST_CASE("backends: MPI not built says what to install") {
  if (mpi_backend_built()) return;  // the MPI backend's own tests: dtplan_mpi_tests
  auto pg = open_mpi_group();
  CHECK(pg.error().kind == ErrorKind::kBackendMissing);
  CHECK(contains(pg.error().message, "MPI backend not built: install libopenmpi-dev"));
}

}  // namespace
}  // namespace dtplan::replay
