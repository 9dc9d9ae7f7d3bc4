#include "replay/nccl/cuda_handles.h"

#include <algorithm>
#include <string>

#include "replay/nccl/cuda_status.h"

namespace dtplan::replay {

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(other.ptr_), bytes_(other.bytes_), device_(other.device_) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    std::swap(ptr_, other.ptr_);
    std::swap(bytes_, other.bytes_);
    device_ = other.device_;
  }
  return *this;
}

void DeviceBuffer::release() {
  if (ptr_ != nullptr) {
    cudaSetDevice(device_);
    cudaFree(ptr_);
  }
  ptr_ = nullptr;
  bytes_ = 0;
}

core::Status DeviceBuffer::reserve(int device, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  if (ptr_ != nullptr && device_ == device && bytes_ >= bytes) return {};
  release();
  DTPLAN_CHECK(cuda_status(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")"));
  DTPLAN_CHECK(cuda_status(
      cudaMalloc(&ptr_, bytes),
      "cudaMalloc(" + std::to_string(bytes) + " bytes) on device " + std::to_string(device)));
  bytes_ = bytes;
  device_ = device;
  return {};
}

core::Result<CudaStream> CudaStream::create(int device) {
  DTPLAN_CHECK(cuda_status(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")"));
  CudaStream s;
  DTPLAN_CHECK(cuda_status(cudaStreamCreateWithFlags(&s.stream_, cudaStreamNonBlocking),
                           "cudaStreamCreateWithFlags"));
  return s;
}

CudaStream::~CudaStream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

core::Result<CudaEvent> CudaEvent::create(int device) {
  DTPLAN_CHECK(cuda_status(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")"));
  CudaEvent e;
  DTPLAN_CHECK(cuda_status(cudaEventCreate(&e.event_), "cudaEventCreate"));
  return e;
}

CudaEvent::~CudaEvent() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

core::Result<CublasHandle> CublasHandle::create(const CublasApi& api, int device,
                                                cudaStream_t stream) {
  DTPLAN_CHECK(cuda_status(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")"));
  CublasHandle h;
  h.api_ = &api;
  DTPLAN_CHECK(cublas_status(api, api.create(&h.handle_), "cublasCreate"));
  DTPLAN_CHECK(cublas_status(api, api.set_stream(h.handle_, stream), "cublasSetStream"));
  return h;
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) api_->destroy(handle_);
}

}  // namespace dtplan::replay
