#pragma once
// Calibration: a hardware profile whose measured tables reproduce nccl-tests logs. Every run
// (collective, group layout) becomes one measured table of (size, out-of-place time) points;
// repeated sizes of the same (collective, layout) are averaged, and the times are made
// non-decreasing in size by isotonic regression (least squares; real logs have noisy dips, which
// the tables may not keep). Tables of the base profile with the same key are replaced.
//
//   auto runs = load_nccl_tests_log("all_reduce_perf_16.log").value();
//   Calibration cal = calibrate(base, runs, "h100-dgx-calibrated").value();
//   cal.tables[0].max_error_pct   // the new profile vs the log, over every logged size

#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"
#include "cost/nccl_tests_log.h"

namespace dtplan::cost {

struct CalibratedTable {
  collective::Collective collective = collective::Collective::kAllReduce;
  GroupTopology layout;
  std::int64_t rows = 0;             // logged rows used (size > 0)
  std::int64_t points = 0;           // distinct sizes in the table
  double max_error_pct = 0;          // calibrated profile vs log, worst size
  double formula_max_error_pct = 0;  // the base profile's NCCL formulas vs log, worst size
  std::string sources;               // "file:line" of the runs, comma-separated
  bool operator==(const CalibratedTable&) const = default;
};

struct Calibration {
  HardwareProfile profile;
  std::vector<CalibratedTable> tables;  // in order of first appearance in the runs
};

// @pre runs from parse_nccl_tests_log. Errors (kBadInput): no runs, an empty name, a run with
// more ranks on a node than the base has GPUs (naming the run's source).
core::Result<Calibration> calibrate(const HardwareProfile& base, std::span<const NcclTestsRun> runs,
                                    const std::string& name);

}  // namespace dtplan::cost
