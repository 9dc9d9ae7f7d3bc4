#include "sweep/sweep_io.h"

#include <doctest/doctest.h>

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

}  // namespace
}  // namespace dtplan::sweep
