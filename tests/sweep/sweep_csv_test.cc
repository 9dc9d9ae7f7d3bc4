#include "sweep/sweep_csv.h"

#include <doctest/doctest.h>

#include "core/strings.h"
#include "support/mesh_gen.h"
#include "support/sweep_support.h"
#include "sweep/sweep.h"

namespace dtplan::sweep {
namespace {

TEST_CASE("sweep csv: header, one line per mesh best first, quoted fields") {
  testing::FakeEvaluator fake;
  fake.set({2, 4}, core::Error::unsupported("no plan, \"really\""));
  const SweepSetup s{"m", 2, "h100-dgx", 8, 8, {1, 2, 3}, 0, "fake"};
  auto r = testing::ok(run_sweep(s, testing::fsdp_tp_candidates(8), fake));
  const std::string csv = sweep_csv(r);
  std::vector<std::string> lines;
  for (std::string_view l : core::split(csv, '\n')) {
    if (!l.empty()) lines.emplace_back(l);
  }
  REQUIRE(lines.size() == 1 + r.rows.size());
  for (const std::string& l : lines) CHECK(l.back() == '\r');
  CHECK(lines[0] ==
        "rank,shape,names,flatten,batch,grad_accum,checkpoint,parallelize,step_time_us,compute_us,"
        "communication_us,exposed_us,other_us,memory_bytes_per_rank,tokens_per_s_per_gpu,mfu,"
        "fits_memory,feasible,optimal,tp_within_node,note\r");
  // (8): 1000 + (40 + 64) / 2 = 1052; (4,2): 1000 + 56 + 5 = 1061; (2,2,2): 1000 + 48 + 10 = 1058.
  CHECK(lines[1] ==
        "1,8,dp_shard,,0,1,,optimal,1052.000,1000.000,104.000,52.000,0.000,8589934592,0.000,"
        "0.000000,true,true,true,true,\r");
  CHECK(lines[2] ==
        "2,2x2x2,\"dp_shard,cp,tp\",dp_shard+cp dp_shard+cp+tp,0,1,,optimal,1058.000,1000.000,"
        "96.000,48.000,10.000,34359738368,0.000,0.000000,true,true,true,true,\r");
  CHECK(lines[3].substr(0, 8) == "3,4x2,\"d");
  CHECK(lines[4] ==
        "4,2x4,\"dp_shard,tp\",dp_shard+tp,0,1,,optimal,0.000,0.000,0.000,0.000,0.000,0,0.000,"
        "0.000000,true,false,false,true,\"no plan, \"\"really\"\"\"\r");
}

TEST_CASE("sweep csv: field quoting") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("") == "");
}

}  // namespace
}  // namespace dtplan::sweep
