#include "cost/hardware_io.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "support/profiles.h"

namespace dtplan::cost {
namespace {

using testing::source_configs;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s;
}

TEST_CASE("hardware io: every shipped profile loads, validates and round-trips") {
  std::vector<std::string> names = list_hardware(source_configs());
  for (const char* required : {"a100-dgx", "b200-dgx", "h100-dgx", "h200-dgx"}) {
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  }
  for (const std::string& name : names) {
    CAPTURE(name);
    auto p = load_hardware(name, source_configs(), "test");
    REQUIRE_MESSAGE(p.ok(), (p.ok() ? std::string() : p.error().message));
    CHECK(p.value().name == name);
    CHECK(validate(p.value()).ok());
    auto again = parse_hardware_json(hardware_to_json(p.value()), "round-trip");
    REQUIRE(again.ok());
    CHECK(again.value() == p.value());
  }
  HardwareProfile h100 = testing::profile("h100-dgx");
  CHECK(h100.gpu.arch == GpuArch::kHopper);
  CHECK(h100.node.nvls);
  CHECK(h100.nccl.version == NcclVersion::k2_28);
  CHECK(testing::profile("a100-dgx").node.cpu_vendor == CpuVendor::kAmd);
  CHECK(testing::profile("b200-dgx").gpu.arch == GpuArch::kBlackwell);
  // The fabric section is optional: without it every factor is 1.
  std::string path = std::string(DTPLAN_SOURCE_DIR) + "/configs/hardware/h100-dgx.json";
  nlohmann::json doc = nlohmann::json::parse(read_file(path));
  doc.erase("fabric");
  auto plain = parse_hardware_json(doc.dump(), "no-fabric.json");
  REQUIRE(plain.ok());
  CHECK(plain.value().fabric == FabricEfficiency{});
}

// Edits the h100 profile's JSON and returns the parse error message.
std::string error_after(const std::function<void(nlohmann::json&)>& edit) {
  std::string path = std::string(DTPLAN_SOURCE_DIR) + "/configs/hardware/h100-dgx.json";
  nlohmann::json doc = nlohmann::json::parse(read_file(path));
  edit(doc);
  auto r = parse_hardware_json(doc.dump(), "bad.json");
  if (r.ok()) return "(no error)";
  return r.error().message;
}

TEST_CASE("hardware io: errors name the file and the field") {
  CHECK(error_after([](auto& d) { d["node"]["nic_gbit_per_s"] = -400; }) ==
        "bad.json: node.nic_gbit_per_s: must be > 0, got -400");
  CHECK(error_after([](auto& d) { d["node"].erase("gpus_per_node"); }) ==
        "bad.json: node.gpus_per_node: missing (required)");
  CHECK(error_after([](auto& d) {
          d["gpu"]["hbm_byte_per_s"] = "fast";
        }).starts_with("bad.json: gpu.hbm_byte_per_s: must be a number"));
  CHECK(error_after([](auto& d) {
          d["gpu"]["arch"] = "kepler";
        }).starts_with("bad.json: gpu.arch: unknown GPU architecture 'kepler'"));
  CHECK(error_after([](auto& d) { d["node"]["nic_gbit_per_sec"] = 400; }) ==
        "bad.json: node.nic_gbit_per_sec: unknown field; did you mean 'node.nic_gbit_per_s'?");
  CHECK(error_after([](auto& d) { d["turbo"] = true; }) == "bad.json: turbo: unknown field");
  CHECK(error_after([](auto& d) {
          d["nccl"]["version"] = "2.9";
        }).starts_with("bad.json: nccl.version: NCCL 2.9 predates 2.18"));
  CHECK(error_after([](auto& d) {
          d["node"]["gpus_per_node"] = 7.5;
        }).starts_with("bad.json: node.gpus_per_node: must be an integer"));
  CHECK(error_after([](auto& d) {
          d["gpu"]["peak_flop_per_s"]["float99"] = 1;
        }).starts_with("bad.json: gpu.peak_flop_per_s.float99:"));
  CHECK(error_after([](auto& d) {
          d["measured"] = {{{"collective", "all_reduce"},
                            {"ranks", 16},
                            {"nodes", 2},
                            {"points", {{1024, 30.0}, {2048, 20.0}}}}};
        }).starts_with("bad.json: measured[0].points[1]: time 20 us is below"));
  CHECK(error_after([](auto& d) {
          d["measured"] = {
              {{"collective", "all_reduce"}, {"ranks", 16}, {"nodes", 2}, {"points", {{1024}}}}};
        }).starts_with("bad.json: measured[0].points[0]: must be [size_bytes, time_us]"));
  CHECK(error_after([](auto& d) { d["fabric"]["nic_efficiency"] = 1.5; }) ==
        "bad.json: fabric.nic_efficiency: must be in (0, 1], got 1.5");
  CHECK(error_after([](auto& d) {
          d["fabric"]["nic_efficiency_at_scale"] = "high";
        }).starts_with("bad.json: fabric.nic_efficiency_at_scale: must be a number"));
  CHECK(error_after([](auto& d) {
          d["fabric"]["qps"] = 4;
        }).starts_with("bad.json: fabric.qps: unknown field"));
  auto broken = parse_hardware_json("{\"name\": ", "broken.json");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message.starts_with("broken.json: invalid JSON: parse error at line 1"));
}

TEST_CASE("hardware io: lookup by name, by path and through DTPLAN_CONFIG_DIR") {
  auto byname = load_hardware("h200-dgx", source_configs(), "--hardware");
  REQUIRE(byname.ok());
  std::string path = std::string(DTPLAN_SOURCE_DIR) + "/configs/hardware/a100-dgx.json";
  auto bypath = load_hardware(path, ConfigSearch{}, "--hardware");
  REQUIRE(bypath.ok());
  CHECK(bypath.value().name == "a100-dgx");

  auto typo = load_hardware("h100-dgz", source_configs(), "--hardware");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().message.starts_with("--hardware: no hardware profile 'h100-dgz'"));
  CHECK(typo.error().message.find("did you mean 'h100-dgx'") != std::string::npos);
  auto missing = load_hardware("nowhere/x.json", source_configs(), "--hardware");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "--hardware: hardware profile file 'nowhere/x.json' not found");

  // A folder named by DTPLAN_CONFIG_DIR comes first.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "dtplan_config_dir_test";
  fs::create_directories(dir / "hardware");
  HardwareProfile custom = testing::profile("h100-dgx");
  custom.name = "lab-box";
  std::ofstream(dir / "hardware" / "lab-box.json") << hardware_to_json(custom);
  ::setenv("DTPLAN_CONFIG_DIR", dir.c_str(), 1);
  ConfigSearch search = config_search("");
  ::unsetenv("DTPLAN_CONFIG_DIR");
  REQUIRE_FALSE(search.roots.empty());
  CHECK(search.roots.front() == fs::weakly_canonical(dir));
  auto lab = load_hardware("lab-box", search, "--hardware");
  REQUIRE(lab.ok());
  CHECK(lab.value() == custom);
  fs::remove_all(dir);
}

TEST_CASE("hardware io: an installed binary finds PREFIX/share/dtplan/configs") {
  namespace fs = std::filesystem;
  const fs::path prefix = fs::temp_directory_path() / "dtplan_install_layout_test";
  fs::remove_all(prefix);
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share" / "dtplan" / "configs" / "hardware");
  HardwareProfile custom = testing::profile("h100-dgx");
  custom.name = "installed-box";
  std::ofstream(prefix / "share" / "dtplan" / "configs" / "hardware" / "installed-box.json")
      << hardware_to_json(custom);
  const ConfigSearch search = config_search(prefix / "bin" / "dtplan");
  REQUIRE_FALSE(search.roots.empty());
  CHECK(search.roots.front() == fs::weakly_canonical(prefix / "share" / "dtplan" / "configs"));
  auto found = load_hardware("installed-box", search, "--hardware");
  REQUIRE(found.ok());
  CHECK(found.value() == custom);
  fs::remove_all(prefix);
}

// Regression (fuzz target hardware, tests/fuzz/regressions/hardware/): a number beyond double
// such as 10e1012 made nlohmann throw out_of_range, which escaped as exit 1 ("internal error").
TEST_CASE("hardware io: a number too large for a double is invalid JSON, not an exception") {
  auto r = parse_hardware_json(R"({"name": "x", "gpu": {"hbm_byte_per_s": 10e1012}})", "big.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.starts_with("big.json: invalid JSON: "));
  CHECK(r.error().message.find("number overflow parsing '10e1012'") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::cost
