#include "cost/nccl_tests_log.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "core/strings.h"
#include "support/cli.h"

namespace dtplan::cost {
namespace {

using collective::Collective;

std::string data(const std::string& name) {
  return testing::source_path("tests/data/nccl-tests/" + name);
}

TEST_CASE("nccl-tests log: the sample logs") {
  auto ar = load_nccl_tests_log(data("all_reduce_perf_1x8_h100.log"));
  REQUIRE_MESSAGE(ar.ok(), (ar.ok() ? std::string() : ar.error().message));
  REQUIRE(ar.value().size() == 1);
  const NcclTestsRun& run = ar.value()[0];
  CHECK(run.collective == Collective::kAllReduce);
  CHECK(run.layout == uniform_topology(1, 8));
  CHECK(run.hosts == std::vector<std::string>{"dgx-h100-01"});
  CHECK(run.device == "NVIDIA H100 80GB HBM3");
  CHECK(run.rows.size() == 24);  // 1 KiB .. 8 GiB
  CHECK(run.rows.front().size_bytes == 1024);
  CHECK(run.rows.front().count == 256);
  CHECK(run.rows.back().size_bytes == std::int64_t{8} << 30);
  CHECK(run.source.ends_with("all_reduce_perf_1x8_h100.log:3"));

  auto a2a = load_nccl_tests_log(data("alltoall_perf_2x8_h100.log")).value();
  CHECK(a2a[0].collective == Collective::kAllToAll);
  CHECK(a2a[0].layout == uniform_topology(2, 8));
  CHECK(a2a[0].hosts.size() == 2);
  auto rs = load_nccl_tests_log(data("reduce_scatter_perf_8x8_h100.log")).value();
  CHECK(rs[0].collective == Collective::kReduceScatter);
  CHECK(rs[0].layout == uniform_topology(8, 8));
  auto ag = load_nccl_tests_log(data("all_gather_perf_2x8_h100.log")).value();
  CHECK(ag[0].collective == Collective::kAllGather);
  // Times are the out-of-place column.
  for (const NcclTestsRow& row : ag[0].rows) {
    double expected = row.size_bytes / 1e3 / row.time_us;  // printed with 2 decimals
    CHECK(std::abs(row.algbw_gbyte_per_s - expected) <= 0.005 + 0.01 * expected);
  }
}

const char* kOldLog =
    "# nThread 1 nGpus 4 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20 "
    "validation: 1\n"
    "#\n"
    "# Using devices\n"
    "#   Rank  0 Pid  1 on nodeA device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
    "#   Rank  1 Pid  1 on nodeA device  1 [0x0b] NVIDIA A100-SXM4-80GB\n"
    "#   Rank  2 Pid  1 on nodeA device  2 [0x48] NVIDIA A100-SXM4-80GB\n"
    "#   Rank  3 Pid  2 on nodeB device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
    "#\n"
    "#                                                     out-of-place                       "
    "in-place\n"
    "#       size         count    type   redop     time   algbw   busbw  error     time   "
    "algbw   busbw  error\n"
    "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  "
    "(GB/s)  (GB/s)\n"
    "        1024           256   float     sum    31.50    0.03    0.05  0e+00    31.20    "
    "0.03    0.05  0e+00\n"
    "        2048           512   float     sum    31.90    0.06    0.10  0e+00    31.70    "
    "0.06    0.10  0e+00\n"
    "NCCL INFO 4096 Bytes -> Algo 1 proto 0 time 31.000000\n"
    "        4096          1024   float     sum    32.40    0.13    0.19  0e+00    32.10    "
    "0.13    0.19  0e+00\n"
    "# Out of bounds values : 0 OK\n";

TEST_CASE("nccl-tests log: older format, collective from the file name, uneven hosts") {
  auto noname = parse_nccl_tests_log(kOldLog, "run.log");
  REQUIRE_FALSE(noname.ok());
  CHECK(noname.error().message.starts_with("run.log:1: no '# Collective test starting:'"));
  auto r = parse_nccl_tests_log(kOldLog, "logs/all_reduce_perf.txt");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  const NcclTestsRun& run = r.value()[0];
  CHECK(run.collective == Collective::kAllReduce);
  CHECK(run.layout == GroupTopology{4, 2, 1, 3});
  REQUIRE(run.rows.size() == 3);
  CHECK(run.rows[1].time_us == 31.90);  // no redop/root columns: the header says where time is
  CHECK(run.rows[2].size_bytes == 4096);
  // The longest binary name wins ("reduce_scatter_perf", not "scatter_perf").
  auto rs = parse_nccl_tests_log(kOldLog, "reduce_scatter_perf.log");
  CHECK(rs.value()[0].collective == Collective::kReduceScatter);
}

TEST_CASE("nccl-tests log: mpirun tags and several runs in one file") {
  std::string one =
      "# Collective test starting: all_gather_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 16\n"
      "#  Rank  0 Group  0 Pid  1 on a device  0 [0] GPU\n"
      "#  Rank  1 Group  0 Pid  2 on b device  0 [0] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "           0             0     float    none      -1     1.00    0.00    0.00       0\n"
      "           8             1     float    none      -1    20.00    0.00    0.00       0\n"
      "# Collective test concluded: all_gather_perf\n";
  std::string two = one;
  two.replace(two.find("all_gather_perf"), 15, "alltoall_perf");
  std::string tagged;
  std::string both = one + two;
  for (std::string_view line : core::split(both, '\n')) {
    if (!line.empty()) tagged += "[1,0]<stdout>:" + std::string(line) + "\n";
  }
  auto r = parse_nccl_tests_log(tagged, "tagged.log");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().message));
  REQUIRE(r.value().size() == 2);
  CHECK(r.value()[0].collective == Collective::kAllGather);
  CHECK(r.value()[1].collective == Collective::kAllToAll);
  CHECK(r.value()[0].rows.size() == 1);  // size 0 is skipped
  CHECK(r.value()[0].layout == uniform_topology(2, 1));
}

TEST_CASE("nccl-tests log: errors name file and line") {
  std::string dup =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid  1 on a device  0 [0] GPU\n"
      "#  Rank  0 Group  0 Pid  2 on a device  0 [0] GPU\n";
  auto r = parse_nccl_tests_log(dup, "dup.log");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "dup.log:3: rank 0 is listed twice (nccl-tests built without MPI support?)");
  std::string headerless =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid  1 on a device  0 [0] GPU\n"
      "        1024           256     float     sum      -1    17.52    0.06    0.10       0\n";
  CHECK(parse_nccl_tests_log(headerless, "h.log").error().message.starts_with("h.log:3:"));
  std::string garbled =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid  1 on a device  0 [0] GPU\n"
      "#  Rank  1 Group  0 Pid  1 on a device  1 [0] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "        1024           256     float     sum      -1    fast    0.06    0.10       0\n";
  CHECK(parse_nccl_tests_log(garbled, "g.log")
            .error()
            .message.starts_with("g.log:5: cannot read the out-of-place time"));
  CHECK(parse_nccl_tests_log("hello\n", "empty.log")
            .error()
            .message.starts_with("empty.log: no nccl-tests run found"));
  CHECK(parse_nccl_tests_log("# Collective test starting: frobnicate_perf\n", "f.log")
            .error()
            .message.starts_with("f.log:1: unknown collective"));
  CHECK_FALSE(load_nccl_tests_log("/nonexistent/x.log").ok());
}

// Regression (tests/data/malformed/nccl/all_reduce_perf_row_huge_size.log): a data row whose size
// does not fit in 64 bits was skipped as a text line, so calibrate wrote a profile without it.
TEST_CASE("nccl-tests log: a row size beyond 64 bits is an error, not a skipped line") {
  const std::string head =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid  1 on a device  0 [0] GPU\n"
      "#  Rank  1 Group  0 Pid  1 on a device  1 [0] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"
      "        1024           256     float     sum      -1    17.0    0.06    0.10       0\n";
  auto r = parse_nccl_tests_log(head +
                                    "  99999999999999999999  2048  float  sum  -1  17.1  0.48  "
                                    "0.84  0\n",
                                "big.log");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message ==
        "big.log:6: size '99999999999999999999' does not fit in a 64-bit integer");
  // Text lines that start with a word are still skipped.
  auto ok = parse_nccl_tests_log(head + "NCCL INFO something 123\n", "ok.log");
  REQUIRE(ok.ok());
  CHECK(ok->front().rows.size() == 1);
}

}  // namespace
}  // namespace dtplan::cost
