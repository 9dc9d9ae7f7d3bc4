// The exact solver's answer: what its predicates find proven (and that they change nothing), and
// the stop reason it reports.

#include "solve/exact/answer.h"

#include <doctest/doctest.h>

namespace dtplan::solve::detail {
namespace {

Answer answer(double cost_us, double bound) {
  Answer a;
  a.labels = {0};
  a.cost_us = cost_us;
  a.bound = bound;
  return a;
}

TEST_CASE("settled: optimal at the bound, within the gap near it, else nothing; a is unchanged") {
  const SolveOptions exact{};
  SolveOptions gap{};
  gap.relative_gap = 0.01;
  const Answer at = answer(100, 100);
  CHECK(settled(at, exact) == Proof::kOptimal);
  CHECK(at.proof == Proof::kNone);  // a test, not a record
  const Answer near = answer(100, 99.5);
  CHECK(settled(near, exact) == Proof::kNone);
  CHECK(settled(near, gap) == Proof::kWithinGap);
  CHECK(near.proof == Proof::kNone);
  CHECK(settled(answer(100, 98), gap) == Proof::kNone);
  Answer proven = answer(100, 50);
  proven.proof = Proof::kOptimal;
  CHECK(settled(proven, gap) == Proof::kOptimal);
  Answer none = answer(100, 99.5);
  none.labels.clear();
  CHECK(settled(none, gap) == Proof::kNone);  // no labelling: nothing within the gap
}

TEST_CASE("proof_with_gap: keeps a proof of optimality, else marks the gap where it holds") {
  SolveOptions gap{};
  gap.relative_gap = 0.01;
  Answer a = answer(100, 100);  // at the bound, but proof_with_gap does not prove optimality
  CHECK(proof_with_gap(a, gap) == Proof::kWithinGap);
  a.proof = Proof::kOptimal;
  CHECK(proof_with_gap(a, gap) == Proof::kOptimal);
  Answer infeasible = answer(100, 99.5);
  infeasible.proof = Proof::kInfeasible;
  CHECK(proof_with_gap(infeasible, gap) == Proof::kWithinGap);  // a labelling found after all
  CHECK(proof_with_gap(infeasible, SolveOptions{}) == Proof::kInfeasible);
}

TEST_CASE("stop_reason: the point limit, then the time limit, then the gap") {
  Answer a = answer(100, 99.5);
  CHECK(stop_reason(a) == StopReason::kNone);
  a.proof = Proof::kWithinGap;
  CHECK(stop_reason(a) == StopReason::kGap);
  a.stop = RunStatus::kTimeLimit;
  CHECK(stop_reason(a) == StopReason::kTimeLimit);
  a.stop = RunStatus::kPointLimit;
  CHECK(stop_reason(a) == StopReason::kPointLimit);
  a.proof = Proof::kOptimal;
  a.stop = RunStatus::kComplete;
  CHECK(stop_reason(a) == StopReason::kNone);
}

}  // namespace
}  // namespace dtplan::solve::detail
