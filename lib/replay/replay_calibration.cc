#include "replay/replay_calibration.h"

#include <algorithm>
#include <string>

namespace dtplan::replay {

std::vector<cost::NcclTestsRun> replay_runs(const ReplayReport& report, std::string_view source) {
  std::vector<cost::NcclTestsRun> runs;
  for (const ReplayEntry& e : report.entries) {
    const CollectiveJob& j = e.job;
    if (e.measured_us <= 0) continue;
    auto it = std::find_if(runs.begin(), runs.end(), [&](const cost::NcclTestsRun& r) {
      return r.collective == j.collective && r.layout == j.topology;
    });
    if (it == runs.end()) {
      cost::NcclTestsRun run;
      run.collective = j.collective;
      run.layout = j.topology;
      run.device = report.backend;
      run.source = std::string(source) + ":" + std::string(collective::name(j.collective)) + "/" +
                   std::to_string(j.group_size);
      runs.push_back(std::move(run));
      it = runs.end() - 1;
    }
    cost::NcclTestsRow row;
    row.size_bytes = j.nccl_bytes;
    row.count = collective::nccl_tests_count(j.collective, j.nccl_bytes, core::dtype_bytes(j.dtype),
                                             j.group_size);
    row.time_us = e.measured_us;
    row.algbw_gbyte_per_s = algbw_gbps(j.nccl_bytes, e.measured_us);
    row.busbw_gbyte_per_s = e.measured_busbw_gbps;
    it->rows.push_back(row);
  }
  return runs;
}

}  // namespace dtplan::replay
