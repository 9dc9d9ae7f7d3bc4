#pragma once
// Reads the text output of nccl-tests (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, broadcast_perf, ...; any number of ranks and nodes). What is taken from where:
//   - the collective: "# Collective test starting: all_gather_perf" (nccl-tests >= 2.13); for
//     older logs, a binary name ("all_gather_perf") in the file name;
//   - ranks and nodes: the device lines "#  Rank  3 Group  0 Pid 123 on host-a device  3 [...]
//     NVIDIA H100 80GB HBM3"; every distinct host is a node;
//   - the rows: the data lines under the "#  size  count  type ..." header; the time is the
//     out-of-place "time" column (the first one), in microseconds; size is S in the nccl-tests
//     convention (what dtplan's models take). Rows of size 0 are skipped.
// A file may hold several runs (one per "Collective test starting" line). mpirun tags such as
// "[1,0]<stdout>:" or "[0] " at the start of lines are removed. Errors name "file:line".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collective/collective.h"
#include "core/result.h"
#include "cost/group_topology.h"

namespace dtplan::cost {

struct NcclTestsRow {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  double time_us = 0;            // out-of-place
  double algbw_gbyte_per_s = 0;  // as printed
  double busbw_gbyte_per_s = 0;  // as printed
  bool operator==(const NcclTestsRow&) const = default;
};

struct NcclTestsRun {
  collective::Collective collective = collective::Collective::kAllReduce;
  GroupTopology layout;            // from the device lines
  std::vector<std::string> hosts;  // in order of first appearance
  std::string device;              // GPU name of rank 0 ("NVIDIA H100 80GB HBM3")
  std::string source;              // "file:line" of the run's first line
  std::vector<NcclTestsRow> rows;
};

// Parses every run of a log. `source` is the file name (used in errors and for the fallback
// collective detection). @post every run has >= 1 row, >= 2 ranks, rank ids 0..n-1 exactly once.
core::Result<std::vector<NcclTestsRun>> parse_nccl_tests_log(std::string_view text,
                                                             std::string_view source);

// Reads and parses a log file; errors name the file.
core::Result<std::vector<NcclTestsRun>> load_nccl_tests_log(const std::string& path);

}  // namespace dtplan::cost
