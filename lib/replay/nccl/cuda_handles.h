#pragma once
// Owning handles for the CUDA objects the GPU backend uses: device memory, streams, events and a
// cuBLAS handle. Each is created on a given device (made current first) and released by its
// destructor; move-only. Creation errors come back as core::Error (cuda_status.h).
//
//   DeviceBuffer buf;  DTPLAN_CHECK(buf.reserve(device, 1 << 20));   // grows, never shrinks
//   DTPLAN_TRY(CudaStream s, CudaStream::create(device));

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/result.h"
#include "replay/nccl/cublas_api.h"

namespace dtplan::replay {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // Makes the buffer hold at least `bytes` (at least 1) on `device`, reallocating (contents
  // lost) when it is smaller or on another device.
  core::Status reserve(int device, std::size_t bytes);
  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t capacity() const { return bytes_; }

 private:
  void release();
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

class CudaStream {
 public:
  // A non-blocking stream on `device`.
  static core::Result<CudaStream> create(int device);
  CudaStream() = default;  // no handle
  CudaStream(CudaStream&& other) noexcept : stream_(other.stream_) { other.stream_ = nullptr; }
  CudaStream& operator=(CudaStream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  CudaStream(const CudaStream&) = delete;
  ~CudaStream();
  [[nodiscard]] cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  // A timing event on `device`.
  static core::Result<CudaEvent> create(int device);
  CudaEvent() = default;  // no handle
  CudaEvent(CudaEvent&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
  CudaEvent& operator=(CudaEvent&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  ~CudaEvent();
  [[nodiscard]] cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class CublasHandle {
 public:
  // A cuBLAS handle on `device`, issuing work to `stream`.
  static core::Result<CublasHandle> create(const CublasApi& api, int device, cudaStream_t stream);
  CublasHandle() = default;  // no handle
  CublasHandle(CublasHandle&& other) noexcept : api_(other.api_), handle_(other.handle_) {
    other.handle_ = nullptr;
  }
  CublasHandle& operator=(CublasHandle&& other) noexcept {
    std::swap(api_, other.api_);
    std::swap(handle_, other.handle_);
    return *this;
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle();
  [[nodiscard]] cublasHandle_t get() const { return handle_; }

 private:
  const CublasApi* api_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace dtplan::replay
