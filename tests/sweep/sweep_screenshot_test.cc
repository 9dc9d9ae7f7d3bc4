// The HTML report renders in a real browser: headless Chromium takes a screenshot of a sweep's
// page, which must be a PNG of the window size that carries far more drawing than a blank page
// of the same size (the charts and table). Skipped where Chromium is not installed.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "core/output_file.h"
#include "core/text_file.h"
#include "support/mesh_gen.h"
#include "support/sweep_support.h"
#include "sweep/sweep.h"
#include "sweep/sweep_html.h"

namespace dtplan::sweep {
namespace {

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string probe = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

// Screenshots `html` at 1100x1400; returns the PNG bytes ("" on failure).
std::string screenshot(const std::string& chromium, const std::string& dir, const std::string& name,
                       const std::string& html) {
  const std::string page = dir + "/" + name + ".html";
  const std::string png = dir + "/" + name + ".png";
  REQUIRE(core::write_output_file(page, html, "page").ok());
  const std::string cmd = chromium +
                          " --headless --no-sandbox --disable-gpu --hide-scrollbars"
                          " --screenshot='" +
                          png + "' --window-size=1100,1400 'file://" + page + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return "";
  return core::read_text_file(png, "screenshot").value_or("");
}

TEST_CASE("sweep html: headless Chromium renders the charts") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    MESSAGE("skipped: Chromium is not installed (apt-get install chromium)");
    return;
  }
  testing::FakeEvaluator fake;
  const SweepSetup s{"fake", 2, "h100-dgx", 64, 8, {1, 2, 3}, 20 * testing::kGiB, "fake"};
  const SweepResult r = testing::ok(run_sweep(s, testing::fsdp_tp_candidates(64), fake));
  const std::string dir = (std::filesystem::temp_directory_path() / "dtplan_sweep_shot").string();
  std::filesystem::create_directories(dir);
  const std::string report = screenshot(chromium, dir, "report", sweep_html(r));
  const std::string blank = screenshot(
      chromium, dir, "blank",
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/></head><body></body></html>\n");
  REQUIRE_MESSAGE(!report.empty(), "chromium failed to take the screenshot");
  REQUIRE(!blank.empty());
  REQUIRE(report.size() > 24);
  CHECK(report.substr(1, 3) == "PNG");
  CHECK(report.substr(12, 4) == "IHDR");
  CHECK(be32(report, 16) == 1100);  // width
  CHECK(be32(report, 20) == 1400);  // height
  CHECK(report.size() > 10 * blank.size());
  if (std::getenv("DTPLAN_KEEP_SHOT") == nullptr) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtplan::sweep
