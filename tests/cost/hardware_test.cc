#include "cost/hardware.h"

#include <doctest/doctest.h>

#include <string>

#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using testing::profile;

TEST_CASE("hardware: derived fabric numbers") {
  HardwareProfile h100 = profile("h100-dgx");
  CHECK(intra_gbyte_per_s(h100.node) == doctest::Approx(370.8));
  CHECK(nic_path_gbyte_per_s(h100.node) == doctest::Approx(48.0));  // min(400/8, Gen5 48)
  HardwareProfile a100 = profile("a100-dgx");
  CHECK(intra_gbyte_per_s(a100.node) == doctest::Approx(240.0));
  CHECK(nic_path_gbyte_per_s(a100.node) == doctest::Approx(24.0));  // min(200/8, Gen4 24)
  CHECK(local_nics(h100.node, 1) == 1);
  CHECK(local_nics(h100.node, 2) == 2);
  CHECK(local_nics(h100.node, 8) == 8);
  NodeSpec four_nics = h100.node;
  four_nics.nics_per_node = 4;
  CHECK(local_nics(four_nics, 1) == 1);
  CHECK(local_nics(four_nics, 2) == 1);
  CHECK(local_nics(four_nics, 3) == 2);
  CHECK(local_nics(four_nics, 8) == 4);
  CHECK(peak_flop_per_s(h100, core::DType::kBF16).value() == doctest::Approx(989.4e12));
  auto none = peak_flop_per_s(a100, core::DType::kF8E4M3);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().kind == core::ErrorKind::kUnsupported);
  CHECK(none.error().message.find("f8e4m3") != std::string::npos);
}

TEST_CASE("hardware: nic_efficiency by node count") {
  HardwareProfile p = profile("h100-dgx");
  CHECK(nic_efficiency(p, 2) == 1.0);  // neutral defaults
  CHECK(nic_efficiency(p, 64) == 1.0);
  p.fabric = {0.9, 0.8, 0.95};
  CHECK(nic_efficiency(p, 1) == 1.0);
  CHECK(nic_efficiency(p, 2) == doctest::Approx(0.9));
  CHECK(nic_efficiency(p, 3) == doctest::Approx(0.8));
  CHECK(nic_efficiency(p, 4) == doctest::Approx(0.8));
  CHECK(nic_efficiency(p, 16) == doctest::Approx(0.8 * 0.95 * 0.95));
}

TEST_CASE("hardware: validation names the field") {
  HardwareProfile good = profile("h100-dgx");
  CHECK(validate(good).ok());
  auto expect = [&](HardwareProfile p, const std::string& field) {
    auto s = validate(p);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == core::ErrorKind::kBadInput);
    CHECK_MESSAGE(s.error().message.find(field) == 0, s.error().message);
  };
  HardwareProfile p = good;
  p.node.nic_gbit_per_s = -1;
  expect(p, "node.nic_gbit_per_s");
  p = good;
  p.node.gpus_per_node = 0;
  expect(p, "node.gpus_per_node");
  p = good;
  p.compute.compute_efficiency = 1.5;
  expect(p, "compute.compute_efficiency");
  p = good;
  p.gpu.hbm_byte_per_s = 0;
  expect(p, "gpu.hbm_byte_per_s");
  p = good;
  p.node.intra_fabric = IntraFabric::kPcie;
  expect(p, "node.nvls");  // NVLS needs NVSwitch
  p = good;
  p.name.clear();
  expect(p, "name");
  p = good;
  p.fabric.nic_efficiency_at_scale = 0;
  expect(p, "fabric.nic_efficiency_at_scale");
  p = good;
  p.fabric.nic_efficiency_per_doubling = 1.2;
  expect(p, "fabric.nic_efficiency_per_doubling");

  MeasuredTable t;
  t.collective = collective::Collective::kAllReduce;
  t.layout = uniform_topology(2, 8);
  t.points = {{1024, 30.0}, {2048, 29.0}};
  p = good;
  p.measured = {t};
  expect(p, "measured[0].points[1]");  // time decreases
  t.points = {{1024, 30.0}, {1024, 31.0}};
  p.measured = {t};
  expect(p, "measured[0].points[1]");  // size does not increase
  t.points = {{1024, 30.0}};
  t.layout = uniform_topology(1, 16);
  p.measured = {t};
  expect(p, "measured[0]");  // 16 ranks on an 8-GPU node
  t.layout = uniform_topology(2, 8);
  p.measured = {t, t};
  expect(p, "measured[1]");  // repeated key
}

TEST_CASE("hardware: enum spellings") {
  CHECK(parse_arch("blackwell", "x").value() == GpuArch::kBlackwell);
  CHECK(arch_name(GpuArch::kAmpere) == "ampere");
  CHECK_FALSE(parse_arch("kepler", "x").ok());
  CHECK(parse_cpu_vendor("amd", "x").value() == CpuVendor::kAmd);
  CHECK(parse_fabric("pcie", "x").value() == IntraFabric::kPcie);
  CHECK(parse_nccl_version("2.18", "v").value() == NcclVersion::k2_18);
  CHECK(parse_nccl_version("2.18.3-1", "v").value() == NcclVersion::k2_18);
  CHECK(parse_nccl_version("2.21", "v").value() == NcclVersion::k2_21);
  CHECK(parse_nccl_version("2.22.3", "v").value() == NcclVersion::k2_21);
  CHECK(parse_nccl_version("2.23", "v").value() == NcclVersion::k2_23);
  CHECK(parse_nccl_version("2.27.5", "v").value() == NcclVersion::k2_23);
  CHECK(parse_nccl_version("2.28", "v").value() == NcclVersion::k2_28);
  CHECK(parse_nccl_version("2.30.3", "v").value() == NcclVersion::k2_28);
  CHECK(nccl_version_name(NcclVersion::k2_21) == "2.21");
  auto old = parse_nccl_version("2.12", "--nccl-version");
  REQUIRE_FALSE(old.ok());
  CHECK(old.error().kind == core::ErrorKind::kUnsupported);
  auto bad = parse_nccl_version("two", "--nccl-version");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("--nccl-version") == 0);
  CHECK_FALSE(parse_nccl_version("2.x", "v").ok());
  CHECK_FALSE(parse_nccl_version("2", "v").ok());
}

}  // namespace
}  // namespace dtplan::cost
