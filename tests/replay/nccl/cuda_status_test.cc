// Built into dtplan_tests only with the NCCL backend (tests/CMakeLists.txt); needs no GPU.
#include "replay/nccl/cuda_status.h"

#include <doctest/doctest.h>

#include <string>

#include "replay/nccl/cuda_handles.h"

namespace dtplan::replay {
namespace {

using core::ErrorKind;

TEST_CASE("cuda status: CUDA and NCCL codes become errors naming the call") {
  CHECK(cuda_status(cudaSuccess, "cudaMalloc").ok());
  const core::Status c = cuda_status(cudaErrorMemoryAllocation, "cudaMalloc(64 bytes)");
  CHECK(c.error().kind == ErrorKind::kInternal);
  CHECK(c.error().message == "cudaMalloc(64 bytes): cudaErrorMemoryAllocation (out of memory)");
  CHECK(nccl_status(ncclSuccess, "ncclAllReduce").ok());
  const core::Status n = nccl_status(ncclInvalidArgument, "ncclAllReduce");
  CHECK(n.error().kind == ErrorKind::kInternal);
  CHECK(n.error().message.rfind("ncclAllReduce: NCCL error 4 (invalid argument", 0) == 0);
}

TEST_CASE("cuda status: without a GPU every entry point reports the missing device") {
  const auto count = cuda_device_count();
  if (count.ok()) {
    MESSAGE("a CUDA device is present; the no-GPU path is not tested here");
    return;
  }
  CHECK(count.error().kind == ErrorKind::kBackendMissing);
  CHECK(count.error().message.rfind("no CUDA device: cudaGetDeviceCount returned ", 0) == 0);
  // Allocation without a device fails cleanly (an error, no crash, nothing held).
  DeviceBuffer buffer;
  const core::Status s = buffer.reserve(0, 1024);
  CHECK_FALSE(s.ok());
  CHECK(buffer.get() == nullptr);
  CHECK(buffer.capacity() == 0);
  CHECK_FALSE(CudaStream::create(0).ok());
}

}  // namespace
}  // namespace dtplan::replay
