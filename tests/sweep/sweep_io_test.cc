#include "sweep/sweep_io.h"

#include <doctest/doctest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "support/mesh_gen.h"
#include "support/sweep_support.h"
#include "sweep/sweep.h"

namespace dtplan::sweep {
namespace {

using testing::kGiB;
using testing::ok;

TEST_CASE("sweep json: setup, then results best first with every figure") {
  testing::FakeEvaluator fake;
  fake.set({4, 4}, core::Error::unsupported("no plan"));
  const SweepSetup s{"fake-model", 2, "h100-dgx", 16, 8, {1, 2}, 6 * kGiB, "fake (test formula)"};
  auto r = ok(run_sweep(s, testing::fsdp_tp_candidates(16, {1, 2}), fake));
  const nlohmann::ordered_json doc = sweep_json(r);
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"model", "layers", "hardware", "world", "gpus_per_node",
                                         "dims", "memory_limit_bytes", "evaluator", "batch",
                                         "seq_len", "grad_accum", "checkpoint", "space",
                                         "candidates", "results", "best_per_memory"});
  CHECK(doc["world"] == 16);
  CHECK(doc["dims"] == nlohmann::json::array({1, 2}));
  CHECK(doc["memory_limit_bytes"] == 6 * kGiB);
  CHECK(doc["candidates"] == 4);
  const auto& results = doc["results"];
  REQUIRE(results.size() == 4);
  // (16) fits 6 GiB; (8,2) and (2,8) do not; (4,4) is infeasible.
  CHECK(results[0]["rank"] == 1);
  CHECK(results[0]["shape"] == nlohmann::json::array({16}));
  CHECK(results[0]["names"] == nlohmann::json::array({"dp_shard"}));
  CHECK(results[0]["flatten"] == nlohmann::json::array());
  CHECK(results[0]["step_time_us"] == 1084.0);
  CHECK(results[0]["compute_us"] == 1000.0);
  CHECK(results[0]["communication_us"] == 168.0);
  CHECK(results[0]["exposed_us"] == 84.0);
  CHECK(results[0]["other_us"] == 0.0);
  CHECK(results[0]["memory_bytes_per_rank"] == 4 * kGiB);
  CHECK(results[0]["fits_memory"] == true);
  CHECK(results[1]["shape"] == nlohmann::json::array({8, 2}));
  CHECK(results[1]["flatten"] == nlohmann::json::parse(R"([["dp_shard","tp"]])"));
  CHECK(results[1]["other_us"] == 5.0);
  CHECK(results[1]["fits_memory"] == false);
  CHECK(results[3]["shape"] == nlohmann::json::array({4, 4}));
  CHECK(results[3]["feasible"] == false);
  CHECK(results[3]["note"] == "no plan");
  CHECK(results[3]["rank"] == 4);
  CHECK(results[0]["parallelize"] == "optimal");
  CHECK(results[0]["tokens_per_step"] == 0);
  // Only (16) fits: the best for any limit from its 4 GiB.
  CHECK(doc["best_per_memory"] == nlohmann::json::parse(R"([{"memory_bytes_per_rank":4294967296,
                                                              "rank":1}])"));
}

TEST_CASE("point outcome text: every field round-trips exactly, doubles bit for bit") {
  PointOutcome o;
  o.evaluation.step_time_us = 0.1 + 0.2;  // 0.30000000000000004
  o.evaluation.compute_us = 1.0 / 3.0;
  o.evaluation.communication_us = 5e-324;  // the smallest subnormal
  o.evaluation.exposed_us = 1.7976931348623157e308;
  o.evaluation.memory_bytes_per_rank = (std::int64_t{1} << 62) + 3;
  o.evaluation.feasible = false;
  o.evaluation.optimal = true;
  o.evaluation.note = "quote \" backslash \\ é";
  o.error = "mesh 16 (dp): --plans p/16_dp.json: Is a directory";
  const std::string text = point_outcome_to_string(o);
  CHECK(text.find('\n') == std::string::npos);
  const PointOutcome back = ok(point_outcome_from_string(text, "x"));
  CHECK(back == o);
  CHECK(std::memcmp(&back.evaluation.step_time_us, &o.evaluation.step_time_us, sizeof(double)) ==
        0);
  CHECK(point_outcome_to_string(back) == text);
  for (double v : {-0.0, 123456789.123456789, 1e-300, 2.5}) {
    PointOutcome p;
    p.evaluation.compute_us = v;
    const PointOutcome q = ok(point_outcome_from_string(point_outcome_to_string(p), "x"));
    CHECK(std::memcmp(&q.evaluation.compute_us, &v, sizeof(double)) == 0);
  }
  PointOutcome controls;
  controls.error = "line 1\nline 2";
  CHECK(ok(point_outcome_from_string(point_outcome_to_string(controls), "x")).error ==
        "line 1<U+000A>line 2");
  CHECK(testing::error_of(point_outcome_from_string("{", "rank 1"))
            .rfind("rank 1: invalid JSON", 0) == 0);
  CHECK(testing::error_of(point_outcome_from_string("{}", "rank 1")).find("step_time_us") !=
        std::string::npos);
}

TEST_CASE("sweep json: a failed row says so, with its message last") {
  testing::FakeEvaluator fake;
  fake.set({4, 4}, core::Error::internal("solver: lost"));
  const SweepSetup s{"fake-model", 2, "h100-dgx", 16, 8, {1, 2}, 0, "fake (test formula)"};
  auto r = ok(run_sweep(s, testing::fsdp_tp_candidates(16, {1, 2}), fake));
  const nlohmann::ordered_json doc = sweep_json(r);
  const auto& last = doc["results"][3];
  CHECK(last["shape"] == nlohmann::json::array({4, 4}));
  CHECK(last["feasible"] == false);
  CHECK(last["error"] == "solver: lost");
  CHECK_FALSE(doc["results"][0].contains("error"));
}

}  // namespace
}  // namespace dtplan::sweep
