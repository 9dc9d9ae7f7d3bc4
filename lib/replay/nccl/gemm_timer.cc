// time_gemm (backends.h) on cuBLAS: cublasGemmEx with f32 accumulation, timed with CUDA events.
#include "replay/nccl/gemm_timer.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/checked.h"
#include "replay/fill_copies.h"
#include "replay/nccl/cuda_handles.h"
#include "replay/nccl/cuda_status.h"
#include "sim/half_float.h"

namespace dtplan::replay {

namespace {

core::Result<cudaDataType_t> gemm_datatype(core::DType dtype) {
  switch (dtype) {
    case core::DType::kBF16:
      return CUDA_R_16BF;
    case core::DType::kF16:
      return CUDA_R_16F;
    case core::DType::kF32:
      return CUDA_R_32F;
    default:
      return core::Error::unsupported("time_gemm: dtype " + std::string(core::dtype_name(dtype)) +
                                      " is not timed (bf16, f16, f32 are)");
  }
}

// `count` elements of uniform values in [-1, 1) in the dtype's bytes (fixed seed).
std::vector<std::byte> random_matrix(core::DType dtype, std::int64_t count, std::uint64_t seed) {
  const auto width = static_cast<std::size_t>(core::dtype_bytes(dtype));
  std::vector<std::byte> out(static_cast<std::size_t>(count) * width);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    const float v = dist(rng);
    if (dtype == core::DType::kF32) {
      std::memcpy(&out[i * width], &v, width);
    } else {
      const std::uint16_t h =
          dtype == core::DType::kBF16 ? sim::f32_to_bf16(v) : sim::f32_to_f16(v);
      std::memcpy(&out[i * width], &h, width);
    }
  }
  return out;
}

// `count` elements of `buffer` set to uniform values in [-1, 1): a random tile of at most 2^20
// elements from the host, repeated over the buffer by device copies (fill_copies.h).
core::Status fill_random(const DeviceBuffer& buffer, core::DType dtype, std::int64_t count,
                         std::uint64_t seed) {
  constexpr std::int64_t kTile = std::int64_t{1} << 20;
  const auto width = static_cast<std::size_t>(core::dtype_bytes(dtype));
  const std::vector<std::byte> tile = random_matrix(dtype, std::min(count, kTile), seed);
  auto* base = static_cast<std::byte*>(buffer.get());
  DTPLAN_CHECK(cuda_status(cudaMemcpy(base, tile.data(), tile.size(), cudaMemcpyHostToDevice),
                           "time_gemm: copy the random tile"));
  for (const FillCopy& c : fill_copies(count, kTile)) {
    DTPLAN_CHECK(
        cuda_status(cudaMemcpy(base + static_cast<std::size_t>(c.dst) * width,
                               base + static_cast<std::size_t>(c.src) * width,
                               static_cast<std::size_t>(c.count) * width, cudaMemcpyDeviceToDevice),
                    "time_gemm: repeat the random tile"));
  }
  return {};
}

core::Status check_dims(std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t d : {m, n, k}) {
    if (d < 1 || d > INT_MAX) {
      return core::Error::bad_input("time_gemm: m, n, k must be in [1, 2^31-1], got " +
                                    std::to_string(m) + ", " + std::to_string(n) + ", " +
                                    std::to_string(k));
    }
  }
  return {};
}

}  // namespace

core::Result<TimingStats> gemm_time(std::int64_t m, std::int64_t n, std::int64_t k,
                                    core::DType dtype, const GemmOptions& options) {
  DTPLAN_CHECK(check_dims(m, n, k));
  if (options.warmup_iters < 0 || options.iters < 1) {
    return core::Error::bad_input("time_gemm: need warmup_iters >= 0 and iters >= 1");
  }
  DTPLAN_TRY(cudaDataType_t type, gemm_datatype(dtype));
  auto count = cuda_device_count();
  if (!count.ok()) return count.error().with_context("time_gemm");
  if (options.device < 0 || options.device >= count.value()) {
    return core::Error::bad_input("time_gemm: device " + std::to_string(options.device) +
                                  " does not exist (" + std::to_string(count.value()) + " GPUs)");
  }
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  const int width = core::dtype_bytes(dtype);
  DTPLAN_TRY(std::int64_t a_count, core::checked_mul(m, k, "time_gemm: A elements"));
  DTPLAN_TRY(std::int64_t b_count, core::checked_mul(k, n, "time_gemm: B elements"));
  DTPLAN_TRY(std::int64_t c_count, core::checked_mul(m, n, "time_gemm: C elements"));
  for (std::int64_t c : {a_count, b_count, c_count}) {
    DTPLAN_CHECK(core::checked_mul(c, width, "time_gemm: matrix bytes"));
  }

  const int device = options.device;
  DTPLAN_TRY(CudaStream stream, CudaStream::create(device));
  DTPLAN_TRY(CudaEvent start, CudaEvent::create(device));
  DTPLAN_TRY(CudaEvent stop, CudaEvent::create(device));
  DTPLAN_TRY(const CublasApi* api, cublas_api());
  DTPLAN_TRY(CublasHandle handle, CublasHandle::create(*api, device, stream.get()));
  DeviceBuffer a, b, c;
  DTPLAN_CHECK(a.reserve(device, static_cast<std::size_t>(a_count * width)));
  DTPLAN_CHECK(b.reserve(device, static_cast<std::size_t>(b_count * width)));
  DTPLAN_CHECK(c.reserve(device, static_cast<std::size_t>(c_count * width)));
  DTPLAN_CHECK(fill_random(a, dtype, a_count, 1));
  DTPLAN_CHECK(fill_random(b, dtype, b_count, 2));

  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto mi = static_cast<int>(m);
  const auto ni = static_cast<int>(n);
  const auto ki = static_cast<int>(k);
  auto gemm = [&]() {
    return cublas_status(*api,
                         api->gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, mi, ni, ki, &alpha,
                                      a.get(), type, mi, b.get(), type, ki, &beta, c.get(), type,
                                      mi, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                         "time_gemm " + shape + ": cublasGemmEx");
  };
  for (int i = 0; i < options.warmup_iters; ++i) DTPLAN_CHECK(gemm());
  std::vector<double> samples;
  for (int i = 0; i < options.iters; ++i) {
    DTPLAN_CHECK(cuda_status(cudaEventRecord(start.get(), stream.get()), "cudaEventRecord"));
    DTPLAN_CHECK(gemm());
    DTPLAN_CHECK(cuda_status(cudaEventRecord(stop.get(), stream.get()), "cudaEventRecord"));
    DTPLAN_CHECK(cuda_status(cudaEventSynchronize(stop.get()), "time_gemm: cudaEventSynchronize"));
    float ms = 0;
    DTPLAN_CHECK(
        cuda_status(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime"));
    samples.push_back(static_cast<double>(ms) * 1e3);
  }
  return timing_stats(std::move(samples));
}

}  // namespace dtplan::replay
