#include "plan/step_runs.h"

#include <doctest/doctest.h>

namespace dtplan::plan {
namespace {

using core::GradSync;
using S = OpSchedule;

TEST_CASE("step runs: ops and redistributions per step") {
  const core::TrainingOptions one{};
  CHECK(op_runs(S::kMicrobatch, one) == 1);
  CHECK(op_runs(S::kRecompute, one) == 2);
  CHECK(op_runs(S::kGradient, one) == 1);
  const core::TrainingOptions four{.grad_accum = 4};
  CHECK(op_runs(S::kMicrobatch, four) == 4);
  CHECK(op_runs(S::kRecompute, four) == 8);
  // A redistribution runs with its consumer: again for a recomputation.
  CHECK(redistribution_runs(S::kMicrobatch, S::kRecompute, four) == 8);
  CHECK(redistribution_runs(S::kRecompute, S::kMicrobatch, four) == 4);
  CHECK(redistribution_runs(S::kGradient, S::kGradient, four) == 4);
  CHECK_FALSE(reduces_once(S::kGradient, S::kGradient, four));
  // Without sync, a gradient's reduction (between two gradient ops) runs once per step; the
  // redistributions into its einsum still run per microbatch.
  const core::TrainingOptions last{.grad_accum = 4, .grad_sync = GradSync::kLastMicrobatch};
  CHECK(reduces_once(S::kGradient, S::kGradient, last));
  CHECK(redistribution_runs(S::kGradient, S::kGradient, last) == 1);
  CHECK(redistribution_runs(S::kMicrobatch, S::kGradient, last) == 4);
}

TEST_CASE("step runs: schedule names") {
  for (S s : {S::kMicrobatch, S::kRecompute, S::kGradient}) {
    CHECK(parse_op_schedule(op_schedule_name(s), "schedule").value() == s);
  }
  CHECK(parse_op_schedule("again", "schedule").error().message ==
        "schedule: unknown schedule 'again'; expected microbatch, recompute or gradient");
}

}  // namespace
}  // namespace dtplan::plan
