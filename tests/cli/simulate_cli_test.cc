// dtplan simulate on redistribution plans (what `redistribute --json` writes) and whole-model
// plans (plan_io), in text and JSON, with and without --data; errors name the input.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "plan/plan_io.h"
#include "support/cli.h"
#include "support/plan_support.h"
#include "support/xml_check.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::json;

// A temporary file that holds `text` and is removed at scope exit.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text, const std::string& name) {
    path = "/tmp/dtplan_simulate_test_" + name + "_" + std::to_string(::getpid()) + ".json";
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

const char* kRedistribute =
    "redistribute --mesh 2,4 --names dp,tp --shape 9,6 --from 'S(0),P(sum)' --to 'R,S(1)' --json";

TEST_CASE("simulate: a redistribution plan, text and JSON") {
  TempFile plan(cli_output(kRedistribute), "redist");
  const std::string text = cli_output("simulate --plan " + plan.path);
  CHECK(text.find("# dtplan simulate: f32[9,6] S(0),P(sum) -> R,S(1) on 8 fake ranks") !=
        std::string::npos);
  CHECK(text.find("# totals: ") != std::string::npos);
  CHECK(text.find("# verify") == std::string::npos);
  const Json j = Json::parse(cli_output("simulate --plan " + plan.path + " --json"));
  CHECK(j["kind"] == "redistribution");
  CHECK(j["ranks"] == 8);
  REQUIRE(j["steps"].size() >= 2);
  std::int64_t groups = 0;
  for (const Json& s : j["steps"]) {
    CHECK(s["simulated"].size() == s["groups"]);
    groups += s["groups"].get<std::int64_t>();
  }
  CHECK(j["totals"]["collectives"] == groups);
  CHECK_FALSE(j.contains("verify"));
  const Json d = Json::parse(cli_output("simulate --plan " + plan.path + " --data --json"));
  CHECK(d["verify"]["ranks"] == 8);
  CHECK(d["verify"]["wrong_elements"] == 0);
  CHECK(d["verify"]["replicas_bitwise_equal"] == true);
  const Json i =
      Json::parse(cli_output("simulate --plan " + plan.path + " --data --values int --json"));
  CHECK(i["verify"]["exact"] == true);
  CHECK(cli_output("simulate --plan " + plan.path + " --data").find("# verify: 8 ranks, 0 of") !=
        std::string::npos);
  // --ranks: a larger world is fine, a smaller one names the mesh.
  CHECK(Json::parse(cli_output("simulate --plan " + plan.path + " --ranks 64 --json"))["ranks"] ==
        64);
  CHECK(cli_failure("simulate --plan " + plan.path + " --ranks 4", 2).find("smaller") !=
        std::string::npos);
}

TEST_CASE("simulate: a whole-model plan") {
  TempFile plan(plan::plan_to_json(small_model_plan()), "model");
  const Json j = Json::parse(cli_output("simulate --plan " + plan.path + " --data --json"));
  CHECK(j["kind"] == "model");
  CHECK(j["redistributions"].size() == small_model_plan().redistributions.size());
  CHECK(j["totals"]["wrong_elements"] == 0);
  CHECK(j["totals"]["replicas_bitwise_equal"] == true);
  CHECK(j["totals"]["verified"] == j["redistributions"].size());
  const std::string text = cli_output("simulate --plan " + plan.path + " --data");
  CHECK(text.find("redistributions") != std::string::npos);
  CHECK(text.find("# verify: ") != std::string::npos);
}

TEST_CASE("simulate: throughput and MFU of a model plan, as torchtitan counts them") {
  const std::string out = "/tmp/dtplan_simulate_test_tiny_" + std::to_string(::getpid()) + ".json";
  cli_output("plan --model " + source_path("configs/models/llama3-tiny.json") + " --mesh " +
             source_path("configs/meshes/2x4.json") + " --out " + out);
  const Json j = Json::parse(cli_output("simulate --plan " + out + " --json"));
  std::remove(out.c_str());
  REQUIRE(j.contains("throughput"));
  const Json& t = j["throughput"];
  // llama3-tiny: batch 4 x seq 16 tokens; N = 2 layers x (2 x 64^2 + 2 x 64 x 32 + 3 x 64 x 128
  // + 2 x 64) + norm 64 + output 256 x 64 (the embedding left out); attention 12 x 2 x 64 x 16.
  CHECK(t["tokens_per_step"] == 64);
  const double n = 2.0 * (2 * 4096 + 2 * 64 * 32 + 3 * 64 * 128 + 2 * 64) + 64 + 256 * 64;
  CHECK(t["model_flops_per_token"].get<double>() == doctest::Approx(6 * n + 12.0 * 2 * 64 * 16));
  const double step_s = j["timeline"]["step_time_us"].get<double>() * 1e-6;
  CHECK(t["tokens_per_s_per_gpu"].get<double>() == doctest::Approx(64 / step_s / 8));
  CHECK(t["mfu"].get<double>() ==
        doctest::Approx(t["model_flops_per_token"].get<double>() *
                        t["tokens_per_s_per_gpu"].get<double>() / 989.4e12));
}

// The rows of the text table titled `title` (lines up to the next comment line that follows them).
std::size_t table_rows(const std::string& text, const std::string& title) {
  std::size_t at = text.find(title);
  REQUIRE(at != std::string::npos);
  std::size_t rows = 0;
  bool seen_row = false;
  for (at = text.find('\n', at) + 1; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const bool comment = text[at] == '#';
    if (comment && seen_row) break;
    if (!comment && end > at) {
      ++rows;
      seen_row = true;
    }
    at = end + 1;
  }
  return rows;
}

TEST_CASE("simulate --detail: the long lists are short by default, complete with --detail") {
  const std::string out =
      "/tmp/dtplan_simulate_test_detail_" + std::to_string(::getpid()) + ".json";
  cli_output("plan --model " + source_path("configs/models/llama3-tiny.json") + " --mesh " +
             source_path("configs/meshes/2x4.json") + " --out " + out);
  const std::string json = cli_output("simulate --plan " + out + " --json");
  const Json j = Json::parse(json);
  const std::string brief = cli_output("simulate --plan " + out);
  const std::string detail = cli_output("simulate --plan " + out + " --detail");
  CHECK(cli_output("simulate --plan " + out + " --json --detail") == json);  // always complete
  std::remove(out.c_str());
  const std::size_t n = j["redistributions"].size();
  std::size_t comm = 0;
  for (const Json& p : j["timeline"]["critical_path"]) comm += p["kind"] != "compute" ? 1 : 0;
  REQUIRE(n > 10);
  REQUIRE(comm > 10);
  const std::string title =
      "# dtplan simulate: llama3-tiny, " + std::to_string(n) + " redistributions";
  // Default: the 10 costliest redistributions and the 10 longest communications, then a line
  // each that says how many more there are.
  CHECK(table_rows(brief, title + " (the 10 costliest)\n") == 10);
  CHECK(brief.find("# " + std::to_string(n - 10) +
                   " more redistributions (--detail shows them all)\n# totals: ") !=
        std::string::npos);
  const std::string comm_title = "# communication on the critical path";
  CHECK(table_rows(brief, comm_title + " (the 10 longest of " + std::to_string(comm) + ")\n") ==
        10);
  CHECK(brief.find("# " + std::to_string(comm - 10) +
                   " more communication tasks on the critical path (--detail shows them all)\n") !=
        std::string::npos);
  // --detail: every row, no "more" line; the text is longer by exactly the rows left out.
  CHECK(table_rows(detail, title + "\n") == n);
  CHECK(table_rows(detail, comm_title + "\n") == comm);
  CHECK(detail.find("--detail shows them all") == std::string::npos);
  auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
  CHECK(lines(detail) - lines(brief) == static_cast<std::ptrdiff_t>((n - 10) + (comm - 10)) - 2);
}

TEST_CASE("simulate --html: the step page accounts for every task of the timeline") {
  TempFile plan(plan::plan_to_json(small_model_plan()), "html_model");
  const std::string html = "/tmp/dtplan_simulate_test_" + std::to_string(::getpid()) + ".html";
  const Json j =
      Json::parse(cli_output("simulate --plan " + plan.path + " --html " + html + " --json"));
  CHECK(j["timeline"]["html"] == html);
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The same bytes again (no timestamp, no address, no unordered container in the page).
  cli_output("simulate --plan " + plan.path + " --html " + html);
  std::ifstream again(html);
  CHECK(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()) ==
        page);
  std::remove(html.c_str());
  const auto elements = parse_xml(page);
  REQUIRE(elements.ok());
  std::int64_t tasks = 0;
  int critical = 0;
  for (const XmlElement& e : *elements) {
    if (e.name != "rect" || !e.attr("class").starts_with("task ")) continue;
    tasks += std::stoll(e.attr("data-n"));
    critical += std::stoi(e.attr("data-critical"));
  }
  CHECK(tasks == j["timeline"]["tasks"].get<std::int64_t>());
  CHECK(critical == static_cast<int>(j["timeline"]["critical_path"].size()));
  CHECK(page.find("id=\"busy-chart\"") != std::string::npos);
  // A redistribution plan has no step timeline; an unwritable path is a one-line error.
  TempFile redist(cli_output(kRedistribute), "html_redist");
  CHECK(cli_failure("simulate --plan " + redist.path + " --html " + html, 2) ==
        "dtplan simulate: error: --html: " + redist.path +
            " is a redistribution plan, which has no step timeline (a whole-model plan from "
            "`dtplan plan --out` has)\n");
  CHECK(cli_failure("simulate --plan " + plan.path + " --html /nonexistent/dir/x.html", 2)
            .starts_with("dtplan simulate: error: --html /nonexistent/dir/x.html: "));
}

TEST_CASE("simulate: errors") {
  CHECK(cli_failure("simulate", 2).find("--plan") != std::string::npos);
  CHECK(cli_failure("simulate --plan /nonexistent.json", 2).find("/nonexistent.json") !=
        std::string::npos);
  TempFile bad("{\"steps\": 3}", "bad");
  CHECK_FALSE(cli_failure("simulate --plan " + bad.path, 2).empty());
  TempFile plan(cli_output(kRedistribute), "redist2");
  CHECK(cli_failure("simulate --plan " + plan.path + " --data --values big", 2).find("--values") !=
        std::string::npos);
}

TEST_CASE("redistribute --verify: the verify line and object") {
  const std::string text = cli_output(
      "redistribute --mesh 2,2 --names A,B --shape 5,3 --from 'S(0),S(0)' --to R,R --verify");
  CHECK(text.find("# verify: 4 ranks, 0 of 60 elements wrong") != std::string::npos);
  const Json j = Json::parse(cli_output(
      "redistribute --mesh 2,2 --names A,B --shape 5,3 --from 'P(avg),P(avg)' --to 'S(1),R' "
      "--verify --values int --json"));
  const Json& v = j["verify"];
  CHECK(v["ranks"] == 4);
  CHECK(v["wrong_elements"] == 0);
  CHECK(v["replicas_bitwise_equal"] == true);
  CHECK(v["values"] == "int");
  CHECK(v["exact"] == true);
  CHECK(v["replica_sets"] == 2);
  // Without --verify there is no verify object.
  CHECK_FALSE(Json::parse(cli_output("redistribute --mesh 4 --shape 8 --from 'S(0)' --to R --json"))
                  .contains("verify"));
  CHECK(cli_failure("redistribute --mesh 4 --shape 8 --from 'S(0)' --to R --verify --values x", 2)
            .find("--values") != std::string::npos);
  // A dtype without checkable values is unsupported.
  CHECK(cli_failure("redistribute --mesh 4 --shape 8 --dtype bool --from 'S(0)' --to R --verify", 3)
            .find("bool") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::testing
