#pragma once
// space_text(): what a sweep tried, in one line for the reports' headers (the text table, the
// HTML setup): the roles and their degrees, the tp rule, and the training choices and plans.
//
//   "dp_shard x cp x tp (every degree), tp within a node of 8; batch 256,512; grad-accum 1;
//    checkpoint selective_op; plan optimal,torchtitan"
// A choice the sweep does not vary shows the model's value.

#include <string>

#include "sweep/sweep_result.h"

namespace dtplan::sweep {

std::string space_text(const SweepSetup& setup);

}  // namespace dtplan::sweep
