#pragma once
// Replay results as calibration input: the measured points of a ReplayReport turned into the runs
// cost::calibrate fits a profile's measured tables to (calibrate.h), so that `dtplan calibrate
// --replay` and `--nccl-tests` share one fit. Entries of one (collective, group layout) form one
// run whose rows are (S, measured median); entries with the same S are separate rows, which
// calibrate averages.
//
//   report: all_gather 4 ranks (1 node x 4) at S 1024 and 4096, all_reduce 2 ranks at S 512
//   replay_runs(report, "r.json") -> 2 runs: all_gather (2 rows), all_reduce (1 row),
//                                   sources "r.json:all_gather/4" ...

#include <string_view>
#include <vector>

#include "cost/nccl_tests_log.h"
#include "replay/replay_report.h"

namespace dtplan::replay {

// One run per distinct (collective, layout) in order of first appearance; rows in entry order;
// a run's source is "<source>:<collective>/<group size>". Entries measured at 0 us (too fast for
// the clock) are left out; a run with no row is left out.
std::vector<cost::NcclTestsRun> replay_runs(const ReplayReport& report, std::string_view source);

}  // namespace dtplan::replay
