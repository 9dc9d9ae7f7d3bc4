#include "cost/kernel_efficiency.h"

#include <doctest/doctest.h>

#include "core/text_file.h"
#include "cost/compute_work.h"
#include "cost/hardware_io.h"
#include "cost/roofline.h"
#include "support/cli.h"
#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using core::DType;

TEST_CASE("kernel efficiency: log2-linear interpolation, clamped at the ends") {
  const std::vector<EfficiencyPoint> t = {{1024, 0.2}, {8192, 0.5}, {65536, 0.8}};
  CHECK(efficiency_at(t, 1) == 0.2);  // below the table: the first point
  CHECK(efficiency_at(t, 1024) == 0.2);
  CHECK(efficiency_at(t, 1e9) == 0.8);  // above: the last
  // 2048 is a third of the way from 2^10 to 2^13 in log2: 0.2 + 0.3 / 3
  CHECK(efficiency_at(t, 2048) == doctest::Approx(0.3));
  CHECK(efficiency_at(t, 8192) == doctest::Approx(0.5));
  CHECK(efficiency_at(t, 16384) == doctest::Approx(0.6));
}

TEST_CASE("kernel efficiency: tables are checked") {
  CHECK(check_efficiency_table(std::vector<EfficiencyPoint>{{1, 0.5}}, "t").ok());
  CHECK(!check_efficiency_table(std::vector<EfficiencyPoint>{}, "t").ok());
  auto s = check_efficiency_table(std::vector<EfficiencyPoint>{{4, 0.5}, {4, 0.6}}, "t");
  REQUIRE(!s.ok());
  CHECK(s.error().message == "t[1]: keys must be strictly increasing");
  CHECK(!check_efficiency_table(std::vector<EfficiencyPoint>{{4, 1.5}}, "t").ok());
  CHECK(!check_efficiency_table(std::vector<EfficiencyPoint>{{0, 0.5}}, "t").ok());
  CHECK(parse_attention_kernel("cudnn", "k").value() == AttentionKernel::kCudnn);
  CHECK(!parse_attention_kernel("flash", "k").ok());
}

TEST_CASE("kernel efficiency: h100-dgx GEMM and attention by hand") {
  const HardwareProfile h100 = testing::profile("h100-dgx");
  const Kernel gemm{KernelKind::kGemm};
  // Table points: 1024^3, 2048^3 and 4096^3 square GEMMs, the MAMF plateau at 8192^3.
  CHECK(flop_efficiency(h100, gemm, 2.0 * 1024 * 1024 * 1024) == doctest::Approx(0.18));
  CHECK(flop_efficiency(h100, gemm, 2.0 * 8192 * 8192 * 8192) == doctest::Approx(0.801));
  // 2^36 FLOPs is 2/3 of the way from 2^34 (0.564) to 2^37 (0.751).
  CHECK(flop_efficiency(h100, gemm, 68719476736.0) ==
        doctest::Approx(0.564 + (0.751 - 0.564) * 2.0 / 3.0));
  // A skinny GEMM (TP's wk: n = 128) is below a big one per FLOP, and below 70% of peak.
  Work big = matmul_work(16384, 4096, 4096, DType::kBF16, Pass::kForward).value();
  Work skinny = matmul_work(16384, 128, 4096, DType::kBF16, Pass::kForward).value();
  ComputeCost cb = kernel_roofline(big, DType::kBF16, gemm, h100).value();
  ComputeCost cs = kernel_roofline(skinny, DType::kBF16, gemm, h100).value();
  const double big_rate = big.flops / cb.time_us;
  const double skinny_rate = skinny.flops / cs.time_us;
  CHECK(skinny_rate < big_rate);
  CHECK(skinny_rate < 0.7 * 989.4e12 * 1e-6);
  // 2^39 FLOPs: 2/3 of the way from 2^37 (0.751) to 2^40 (0.801).
  CHECK(flop_efficiency(h100, gemm, big.flops) ==
        doctest::Approx(0.751 + (0.801 - 0.751) * 2.0 / 3.0));
  // cuDNN attention, causal forward at 8k keys: 529 TFLOPS of 989.4.
  CHECK(flop_efficiency(h100, {KernelKind::kAttentionForward, 8192}, 1) == doctest::Approx(0.535));
  CHECK(flop_efficiency(h100, {KernelKind::kAttentionBackward, 8192}, 1) == doctest::Approx(0.524));
  // Generic FLOPs keep the flat factor.
  CHECK(flop_efficiency(h100, Kernel{}, 1e12) == 0.7);
}

TEST_CASE("kernel efficiency: a profile without tables is the flat roofline") {
  HardwareProfile flat = testing::profile("h100-dgx");
  flat.compute.gemm.clear();
  flat.compute.attention.reset();
  flat.compute.tensor_throughput_factor = 0.5;  // applies to tables only
  CHECK(flop_efficiency(flat, {KernelKind::kGemm}, 1e12) == 0.7);
  CHECK(flop_efficiency(flat, {KernelKind::kAttentionForward, 8192}, 1e12) == 0.7);
}

TEST_CASE("kernel efficiency: the 500 W profile derates tensor-core kernels only") {
  const HardwareProfile capped = testing::profile("h100-96gb-500w");
  const HardwareProfile dgx = testing::profile("h100-dgx");
  const double f = capped.compute.tensor_throughput_factor;
  CHECK(f < 1.0);
  CHECK(flop_efficiency(capped, {KernelKind::kGemm}, 1e12) ==
        doctest::Approx(flop_efficiency(dgx, {KernelKind::kGemm}, 1e12) * f));
  CHECK(flop_efficiency(capped, Kernel{}, 1e12) == 0.7);
  CHECK(capped.gpu.hbm_byte_per_s == 2.4e12);
}

}  // namespace
}  // namespace dtplan::cost

namespace dtplan::cost {
namespace {

std::string h100_text() {
  return core::read_text_file(testing::source_path("configs/hardware/h100-dgx.json"), "h100")
      .value();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("kernel efficiency: profile tables are read and checked, the error names the field") {
  const HardwareProfile h100 = parse_hardware_json(h100_text(), "h100.json").value();
  REQUIRE(h100.compute.attention.has_value());
  CHECK(h100.compute.attention->kernel == AttentionKernel::kCudnn);
  CHECK(h100.compute.gemm.size() == 4);
  CHECK(parse_hardware_json(hardware_to_json(h100), "again").value() == h100);
  auto bad_kernel = parse_hardware_json(
      replaced(h100_text(), "\"kernel\": \"cudnn\"", "\"kernel\": \"flash\""), "h.json");
  REQUIRE(!bad_kernel.ok());
  CHECK(bad_kernel.error().message.find("compute.attention.kernel") != std::string::npos);
  auto bad_eff = parse_hardware_json(
      replaced(h100_text(), "[2147483648, 0.18]", "[2147483648, 1.8]"), "h.json");
  REQUIRE(!bad_eff.ok());
  CHECK(bad_eff.error().message.find("compute.gemm_efficiency[0]: efficiency must be in (0, 1]") !=
        std::string::npos);
  auto bad_factor =
      parse_hardware_json(replaced(h100_text(), "\"nccl_overlap_compute_factor\": 0.841",
                                   "\"nccl_overlap_compute_factor\": 0"),
                          "h.json");
  REQUIRE(!bad_factor.ok());
  CHECK(bad_factor.error().message.find("compute.nccl_overlap_compute_factor") !=
        std::string::npos);
}

}  // namespace
}  // namespace dtplan::cost
