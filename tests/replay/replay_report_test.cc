#include "replay/replay_report.h"

#include <doctest/doctest.h>

namespace dtplan::replay {
namespace {

using collective::Collective;

TEST_CASE("replay report: error and totals (worked example)") {
  CHECK(relative_error(50, 100) == -0.5);
  CHECK(relative_error(150, 100) == 0.5);
  CHECK(relative_error(1, 0) == 0);
  CollectiveJob j;
  j.collective = Collective::kAllGather;
  j.group_size = 4;
  j.nccl_bytes = 4'000'000;
  j.predicted_us = 10;
  j.count = 3;
  CallTiming t;
  t.median_us = 20;
  ReplayEntry e = make_entry(j, t, {});
  // algbw 4e6 B / 10 us = 400 GB/s, x 3/4 = 300; measured at 20 us: 150.
  CHECK(e.predicted_busbw_gbps == doctest::Approx(300));
  CHECK(e.measured_busbw_gbps == doctest::Approx(150));
  CHECK(e.error == -0.5);
  const ReplayTotals totals = totals_of({e, e});
  CHECK(totals.predicted_us == 60);
  CHECK(totals.measured_us == 120);
  CHECK(totals.error == -0.5);
}

TEST_CASE("replay report: verification sums and GEMM entries (worked example)") {
  ReplayVerify v;
  add_plan_verify(v, PlanVerify{false, 100, 0, 0, 2, 0});
  add_plan_verify(v, PlanVerify{true, 0, 0, 0, 0, 0});
  add_plan_verify(v, PlanVerify{false, 50, 3, 3, 1, 1});
  CHECK(v.redistributions == 2);
  CHECK(v.skipped == 1);
  CHECK(v.elements == 150);
  CHECK(v.wrong_elements == 3);
  CHECK(v.fake_mismatches == 3);
  CHECK(v.replica_sets == 3);
  CHECK(v.differing_replica_sets == 1);
  CHECK(!v.replicas_bitwise_equal);
  // 2 x 1000 x 1000 x 1000 FLOP in 10 us: 200 TFLOP/s; predicted 8 us: error -0.2.
  const ComputeEntry e =
      make_compute_entry({3, "w", 1000, 1000, 1000, core::DType::kBF16, 8, 2}, {10, 9, 12});
  CHECK(e.measured_tflops == doctest::Approx(200));
  CHECK(e.error == doctest::Approx(-0.2));
  CHECK(e.min_us == 9);
  CHECK(e.max_us == 12);
}

}  // namespace
}  // namespace dtplan::replay
