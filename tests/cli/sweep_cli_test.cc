#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/text_file.h"
#include "support/cli.h"
#include "support/mesh_gen.h"
#include "support/xml_check.h"

namespace dtplan::testing {
namespace {

using Json = nlohmann::ordered_json;

// A 50-node traced graph (two gated-MLP layers) that the exact solver plans in well under a
// second per mesh, on the 1-D and 2-D meshes of 8 ranks without cp: (8) dp_shard, (8) tp, and
// dp_shard x tp as 2x4 and 4x2.
const std::string kBase = "sweep --model tests/data/fx_export_sample.json --world 8 --cp 1";
const std::string kTiny = kBase + " --gpus-per-node 8 --dims 1,2";

TEST_CASE("sweep cli: every mesh of 8 ranks, planned and ranked, best first") {
  const Json doc = Json::parse(cli_output(kTiny + " --json"));
  CHECK(doc["model"] == "GatedMLP");
  CHECK(doc["world"] == 8);
  CHECK(doc["dims"] == Json::array({1, 2}));
  CHECK(doc["candidates"] == 4);
  CHECK(doc["evaluator"] == "exact solver + step simulator");
  const Json& results = doc["results"];
  REQUIRE(results.size() == 4);
  std::vector<Json> shapes;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Json& r = results[i];
    CHECK(r["rank"] == i + 1);
    shapes.push_back(r["shape"]);
    CHECK(json_keys(r.dump()) == std::vector<std::string>{"rank",
                                                          "shape",
                                                          "names",
                                                          "flatten",
                                                          "batch",
                                                          "grad_accum",
                                                          "checkpoint",
                                                          "parallelize",
                                                          "step_time_us",
                                                          "compute_us",
                                                          "communication_us",
                                                          "exposed_us",
                                                          "other_us",
                                                          "memory_bytes_per_rank",
                                                          "tokens_per_step",
                                                          "tokens_per_s_per_gpu",
                                                          "mfu",
                                                          "fits_memory",
                                                          "feasible",
                                                          "optimal",
                                                          "tp_within_node",
                                                          "note"});
    const std::size_t k = r["shape"].size();
    if (k == 2) CHECK(r["names"] == Json::array({"dp_shard", "tp"}));
    CHECK(r["parallelize"] == "optimal");
    if (r["feasible"] == true) {
      CHECK(r["step_time_us"].get<double>() > 0);
      CHECK(r["compute_us"].get<double>() <= r["step_time_us"].get<double>());
      CHECK(r["exposed_us"].get<double>() <= r["communication_us"].get<double>());
      CHECK(r["memory_bytes_per_rank"].get<std::int64_t>() > 0);
      CHECK(r["optimal"] == true);
    }
    if (i > 0 && r["feasible"] == true && results[i - 1]["fits_memory"] == r["fits_memory"]) {
      const double prev = results[i - 1]["step_time_us"].get<double>();
      const double cur = r["step_time_us"].get<double>();
      CHECK(prev <= cur);
      if (prev == cur) {
        CHECK(results[i - 1]["memory_bytes_per_rank"] <= r["memory_bytes_per_rank"]);
      }
    }
  }
  std::sort(shapes.begin(), shapes.end());
  CHECK(shapes == std::vector<Json>{Json::array({2, 4}), Json::array({4, 2}), Json::array({8}),
                                    Json::array({8})});
}

TEST_CASE("sweep cli: the same output for any thread count") {
  const std::string one = cli_output(kTiny + " --json --threads 1");
  CHECK(cli_output(kTiny + " --json --threads 2") == one);
  CHECK(cli_output(kTiny + " --json --threads 3") == one);
  CHECK(cli_output(kTiny + " --threads 1") == cli_output(kTiny + " --threads 2"));
}

TEST_CASE("sweep cli: table, CSV and HTML agree on the ranking") {
  const auto dir = std::filesystem::temp_directory_path() / "dtplan_sweep_cli";
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "s.csv").string();
  const std::string html = (dir / "s.html").string();
  const std::string table =
      cli_output(kBase + " --dims 2 --csv '" + csv + "' --html '" + html + "'");
  const Json doc = Json::parse(cli_output(kBase + " --dims 2 --json"));
  CHECK(table.starts_with("# dtplan sweep: GatedMLP (2 layers) on 8 ranks, h100-dgx"));
  std::vector<std::string> data;
  std::istringstream lines(table);
  for (std::string l; std::getline(lines, l);) {
    if (!l.starts_with("#")) data.push_back(l);
  }
  REQUIRE(data.size() == 2);
  const std::string csv_text = ok(core::read_text_file(csv, "csv"));
  std::vector<std::string> csv_lines;
  std::istringstream cl(csv_text);
  for (std::string l; std::getline(cl, l);) csv_lines.push_back(l);
  REQUIRE(csv_lines.size() == 3);
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string label = std::to_string(doc["results"][i]["shape"][0].get<int>()) + "x" +
                              std::to_string(doc["results"][i]["shape"][1].get<int>());
    CHECK(csv_lines[i + 1].starts_with(std::to_string(i + 1) + "," + label + ","));
    CHECK(data[i].find(" " + label + " ") != std::string::npos);
  }
  const std::string page = ok(core::read_text_file(html, "html"));
  CHECK(parse_xml(page).ok());
  CHECK(page.find("id=\"step-time-chart\"") != std::string::npos);
  CHECK(page.find("id=\"memory-chart\"") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("sweep cli: --plans writes each usable mesh's plan, compare reads them, html links") {
  const auto dir = std::filesystem::temp_directory_path() / "dtplan_sweep_plans_cli";
  std::filesystem::remove_all(dir);
  const std::string plans = (dir / "out" / "plans").string();
  const std::string html = (dir / "s.html").string();
  std::filesystem::create_directories(dir);
  const Json doc =
      Json::parse(cli_output(kTiny + " --json --plans '" + plans + "' --html '" + html + "'"));
  std::vector<std::string> expected;
  for (const Json& r : doc["results"]) {
    if (!r["feasible"].get<bool>() || !r["fits_memory"].get<bool>()) continue;
    std::string shape, names;
    for (const Json& d : r["shape"]) shape += (shape.empty() ? "" : "x") + d.dump();
    for (const Json& n : r["names"]) names += (names.empty() ? "" : "-") + n.get<std::string>();
    expected.push_back(shape + "_" + names + ".json");
  }
  REQUIRE(expected.size() >= 2);
  std::vector<std::string> written;
  for (const auto& e : std::filesystem::directory_iterator(plans)) {
    written.push_back(e.path().filename().string());
  }
  std::sort(written.begin(), written.end());
  std::vector<std::string> sorted = expected;
  std::sort(sorted.begin(), sorted.end());
  CHECK(written == sorted);
  // The files are plans: compare puts two of them side by side.
  const Json cmp = Json::parse(cli_output("compare '" + plans + "/" + expected[0] + "' '" + plans +
                                          "/" + expected[1] + "' --json"));
  CHECK(cmp.dump().find("step") != std::string::npos);
  // The same step time as the sweep's figure for the best mesh.
  const Json sim =
      Json::parse(cli_output("simulate --plan '" + plans + "/" + expected[0] + "' --json"));
  CHECK(sim["timeline"]["step_time_us"].get<double>() ==
        doctest::Approx(doc["results"][0]["step_time_us"].get<double>()));
  // The report links each usable mesh, relative to the page.
  const std::string page = ok(core::read_text_file(html, "html"));
  CHECK(parse_xml(page).ok());
  for (const std::string& name : expected) {
    CHECK(page.find("<a href=\"out/plans/" + name + "\">") != std::string::npos);
  }
  // The same plan on a second run, but for the solver's wall time (as `plan --out` writes it).
  const auto without_time = [](const std::string& text) {
    Json j = Json::parse(text);
    j["solver"].erase("time_s");
    return j.dump();
  };
  const std::string first = ok(core::read_text_file(plans + "/" + expected[0], "plan"));
  cli_output(kTiny + " --json --plans '" + plans + "'");
  CHECK(without_time(ok(core::read_text_file(plans + "/" + expected[0], "plan"))) ==
        without_time(first));
  // A file where the directory should be.
  CHECK(cli_failure(kTiny + " --plans '" + html + "'", 2)
            .starts_with("dtplan sweep: error: --plans " + html + ": "));
  std::filesystem::remove_all(dir);
}

TEST_CASE("sweep cli: a progress bar on a terminal only") {
  // In a pipe (as here) stderr stays empty (cli_output checks it).
  cli_output(kBase + " --dims 2");
  if (std::system("command -v script >/dev/null 2>&1") != 0) return;
  const CliResult tty = run_cli("--version >/dev/null; TERM=xterm CI= script -qec \"'" +
                                std::string(DTPLAN_EXE) + "' " + kBase + " --dims 2\" /dev/null");
  CHECK(tty.exit_code == 0);
  CHECK(tty.out.find("sweep [") != std::string::npos);
  const CliResult ci = run_cli("--version >/dev/null; TERM=xterm CI=true script -qec \"'" +
                               std::string(DTPLAN_EXE) + "' " + kBase + " --dims 2\" /dev/null");
  CHECK(ci.exit_code == 0);
  CHECK(ci.out.find("sweep [") == std::string::npos);
}

TEST_CASE("sweep cli: errors name the flag") {
  CHECK(cli_failure("sweep --world 8", 2) ==
        "dtplan sweep: error: --model: required (a model file)\n");
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json", 2) ==
        "dtplan sweep: error: --world: required (the rank count)\n");
  CHECK(cli_failure(kBase + " --dims 1,5", 2) ==
        "dtplan sweep: error: --dims: 5 is not a mesh dim count in [1, 4]\n");
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json --world 7 --dims 2,3", 3) ==
        "dtplan sweep: error: --world: 7 has no split into 2 or 3 dims with tp within a node of "
        "8 GPUs\n");
  CHECK(cli_failure(kBase + " --tp 0", 2) ==
        "dtplan sweep: error: --tp: 0 is not a positive degree\n");
  CHECK(cli_failure(kBase + " --tp x", 2).starts_with("dtplan sweep: error: --tp: "));
  CHECK(cli_failure(kBase + " --parallelize fsdp", 2) ==
        "dtplan sweep: error: --parallelize: 'fsdp' is not one of optimal, torchtitan\n");
  CHECK(cli_failure(kBase + " --batch 8,0", 2) == "dtplan sweep: error: --batch: 0 is not >= 1\n");
  CHECK(cli_failure(kBase + " --checkpoint none,some", 2)
            .starts_with("dtplan sweep: error: --checkpoint: "));
  CHECK(cli_failure(kBase + " --max-tp-per-node 4 --tp-across-nodes", 2) ==
        "dtplan sweep: error: --max-tp-per-node: cannot be combined with --tp-across-nodes\n");
  CHECK(cli_failure(kBase + " --top -1", 2) ==
        "dtplan sweep: error: --top: -1 is negative (0: every row)\n");
  CHECK(cli_failure("sweep --model configs/models/llama3-tiny.json --world 0", 2) ==
        "dtplan sweep: error: --world: 0 is not a positive number\n");
  CHECK(cli_failure(kTiny + " --memory-limit lots", 2)
            .starts_with("dtplan sweep: error: --memory-limit"));
  CHECK(cli_failure(kBase + " --gpus-per-node 16", 2) ==
        "dtplan sweep: error: --gpus-per-node: 16 is above the 8 GPUs per node of h100-dgx\n");
  CHECK(cli_failure(kTiny + " --time-limit 0", 2) ==
        "dtplan sweep: error: --time-limit: 0.000000 is not a positive number of seconds\n");
  CHECK(cli_failure(kTiny + " --threads -1", 2).starts_with("dtplan sweep: error: --threads"));
  CHECK(cli_failure(kTiny + " --gap -0.5", 2)
            .starts_with("dtplan sweep: error: --gap: -0.500000 is not a relative gap in [0, 1)"));
  CHECK(cli_failure(kTiny + " --html /nonexistent/dir/x.html", 2)
            .starts_with("dtplan sweep: error: "));
  CHECK(cli_failure("sweep --model nope.json --world 8", 2).find("nope.json") != std::string::npos);
}

// LLaMA3-tiny on 4 ranks (2 per node): the optimum and torchtitan's plan at two global batches.
const std::string kTitan =
    "sweep --model configs/models/llama3-tiny.json --world 4 --gpus-per-node 2 --cp 1 "
    "--parallelize optimal,torchtitan --batch 4,8";

TEST_CASE("sweep cli: roles, batch lists and torchtitan's plan beside the optimum") {
  const Json doc = Json::parse(cli_output(kTitan + " --json"));
  // (4) dp_shard and (2,2) dp_shard,tp (tp within a node of 2; tp 4 would span two), x 2
  // batches x 2 plans.
  CHECK(doc["candidates"] == 8);
  CHECK(doc["space"]["batches"] == Json::array({4, 8}));
  CHECK(doc["space"]["parallelize"] == Json::array({"optimal", "torchtitan"}));
  std::set<std::string> seen;
  for (const Json& r : doc["results"]) {
    CHECK(r["feasible"] == true);
    CHECK(r["tp_within_node"] == true);
    CHECK(r["tokens_per_step"] ==
          r["batch"].get<std::int64_t>() * doc["seq_len"].get<std::int64_t>());
    CHECK(r["tokens_per_s_per_gpu"].get<double>() > 0);
    seen.insert(r["names"].dump() + r["batch"].dump() + r["parallelize"].get<std::string>());
  }
  CHECK(seen.size() == 8);
  // Ranked by time per token: tokens/s per GPU never rises down the usable rows.
  for (std::size_t i = 1; i < doc["results"].size(); ++i) {
    CHECK(doc["results"][i - 1]["tokens_per_s_per_gpu"].get<double>() >=
          doc["results"][i]["tokens_per_s_per_gpu"].get<double>());
  }
  // The best per memory limit: rows of the table, memory ascending.
  std::int64_t last = -1;
  for (const Json& b : doc["best_per_memory"]) {
    CHECK(b["memory_bytes_per_rank"].get<std::int64_t>() > last);
    last = b["memory_bytes_per_rank"].get<std::int64_t>();
  }
  CHECK(!doc["best_per_memory"].empty());
  // The table shows the varied choices as columns and ends with the best per memory limit.
  const std::string table = cli_output(kTitan);
  CHECK(table.find("batch") != std::string::npos);
  CHECK(table.find("torchtitan") != std::string::npos);
  CHECK(table.find("# best per memory limit") != std::string::npos);
  CHECK(table.find("# tried: dp_shard x tp (every degree), tp within a node of 2; batch 4,8") !=
        std::string::npos);
}

TEST_CASE("sweep cli: torchtitan's rules make configurations infeasible, with the reason") {
  // A microbatch of 2 sequences cannot split over 4 data-parallel ranks.
  const Json doc = Json::parse(cli_output(
      "sweep --model configs/models/llama3-tiny.json --world 4 --gpus-per-node 2 --dims 1 "
      "--parallelize torchtitan --batch 2 --json"));
  bool found = false;
  for (const Json& r : doc["results"]) {
    if (r["names"] != Json::array({"dp_shard"})) continue;
    found = true;
    CHECK(r["feasible"] == false);
    CHECK(r["note"].get<std::string>().find("data-parallel") != std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("sweep cli: --top cuts the table, not the JSON") {
  const std::string table = cli_output(kTiny + " --top 2");
  std::size_t rows = 0;
  std::istringstream lines(table);
  for (std::string l; std::getline(lines, l);) rows += l.starts_with("#") ? 0 : 1;
  CHECK(rows == 2);
  CHECK(table.find("# ... 2 more (--top 0 prints every row") != std::string::npos);
}

}  // namespace
}  // namespace dtplan::testing
