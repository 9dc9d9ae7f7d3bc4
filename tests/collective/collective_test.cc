#include "collective/collective.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

namespace dtplan::collective {
namespace {

TEST_CASE("collective: nccl-tests busbw factors") {
  CHECK(bus_factor(Collective::kAllReduce, 8) == doctest::Approx(1.75));
  CHECK(bus_factor(Collective::kAllReduce, 16) == doctest::Approx(30.0 / 16));
  CHECK(bus_factor(Collective::kAllGather, 8) == doctest::Approx(0.875));
  CHECK(bus_factor(Collective::kReduceScatter, 64) == doctest::Approx(63.0 / 64));
  CHECK(bus_factor(Collective::kAllToAll, 4) == doctest::Approx(0.75));
  CHECK(bus_factor(Collective::kBroadcast, 8) == 1.0);
  CHECK(bus_factor(Collective::kReduce, 8) == 1.0);
  CHECK(bus_factor(Collective::kSendRecv, 8) == 1.0);
  CHECK(bus_factor(Collective::kGather, 8) == doctest::Approx(0.875));
  CHECK(bus_factor(Collective::kScatter, 2) == doctest::Approx(0.5));
  // One rank moves nothing.
  CHECK(bus_factor(Collective::kAllReduce, 1) == 0.0);
  CHECK(bus_factor(Collective::kAllGather, 1) == 0.0);
}

TEST_CASE("collective: factors stay in range and the all_reduce factor is twice all_gather's") {
  std::mt19937_64 rng(20240611);
  for (int i = 0; i < 500; ++i) {
    std::int64_t n = 1 + static_cast<std::int64_t>(rng() % 4096);
    double ar = bus_factor(Collective::kAllReduce, n);
    double ag = bus_factor(Collective::kAllGather, n);
    CHECK(ar == doctest::Approx(2 * ag));
    CHECK(ag >= 0.0);
    CHECK(ag < 1.0);
    CHECK(wire_bytes_per_rank(Collective::kAllReduce, 1000, n) == doctest::Approx(1000 * ar));
  }
}

TEST_CASE("collective: names parse and print back") {
  for (const CollectiveFacts& f : all_facts()) {
    CHECK(facts(f.collective).name == f.name);
    CHECK(parse_collective(f.name, "x").value() == f.collective);
    CHECK(parse_collective(f.nccl_name, "x").value() == f.collective);
    if (!f.nccl_tests.empty()) CHECK(parse_collective(f.nccl_tests, "x").value() == f.collective);
  }
  CHECK(parse_collective("allreduce", "x").value() == Collective::kAllReduce);
  CHECK(parse_collective("alltoall", "x").value() == Collective::kAllToAll);
  CHECK(parse_collective("All-Gather", "x").value() == Collective::kAllGather);
  CHECK(parse_collective("alltoall_perf", "x").value() == Collective::kAllToAll);
  CHECK(name(Collective::kReduceScatter) == "reduce_scatter");
  CHECK(all_facts().size() == static_cast<std::size_t>(kNumCollectives));
}

TEST_CASE("collective: unknown names suggest the nearest") {
  auto r = parse_collective("all_redcue", "--collective");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == core::ErrorKind::kBadInput);
  CHECK(r.error().message.find("--collective") == 0);
  CHECK(r.error().message.find("did you mean 'all_reduce'") != std::string::npos);
  auto far = parse_collective("xyzzy", "--collective");
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().message.find("expected one of") != std::string::npos);
}

TEST_CASE("collective: the nccl-tests size convention") {
  // all_gather: S is the total output; reduce_scatter: the total input.
  CHECK(nccl_size_from_rank_bytes(Collective::kAllGather, 1024, 8, "x").value() == 8192);
  CHECK(nccl_size_from_rank_bytes(Collective::kReduceScatter, 1024, 8, "x").value() == 8192);
  CHECK(nccl_size_from_rank_bytes(Collective::kAllReduce, 1024, 8, "x").value() == 1024);
  CHECK(nccl_size_from_rank_bytes(Collective::kAllToAll, 1024, 8, "x").value() == 1024);
  CHECK_FALSE(nccl_size_from_rank_bytes(Collective::kAllGather, -1, 8, "x").ok());
  CHECK_FALSE(nccl_size_from_rank_bytes(Collective::kAllGather, 1, 0, "x").ok());
  auto overflow = nccl_size_from_rank_bytes(Collective::kAllGather, INT64_MAX / 2, 4, "bytes");
  REQUIRE_FALSE(overflow.ok());
  CHECK(overflow.error().message.find("bytes") != std::string::npos);

  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::int64_t n = 1 + static_cast<std::int64_t>(rng() % 512);
    std::int64_t b = static_cast<std::int64_t>(rng() % (1 << 30));
    for (const CollectiveFacts& f : all_facts()) {
      std::int64_t s = nccl_size_from_rank_bytes(f.collective, b, n, "x").value();
      CHECK(rank_bytes_from_nccl_size(f.collective, s, n) == b);
    }
  }
}

TEST_CASE("collective: nccl-tests rounds sizes and prints per-call counts") {
  CHECK(nccl_tests_size(Collective::kAllGather, 100, 4, 8) == 96);
  CHECK(nccl_tests_size(Collective::kAllReduce, 100, 4, 8) == 100);
  CHECK(nccl_tests_size(Collective::kAllToAll, 1024, 4, 16) == 1024);
  CHECK(nccl_tests_size(Collective::kAllGather, 8, 4, 16) == 0);
  CHECK(nccl_tests_count(Collective::kAllGather, 8192, 4, 8) == 256);
  CHECK(nccl_tests_count(Collective::kReduceScatter, 8192, 4, 8) == 256);
  CHECK(nccl_tests_count(Collective::kAllReduce, 8192, 4, 8) == 2048);
  // The alltoall_perf log prints 16 elements for 1024 B on 16 ranks.
  CHECK(nccl_tests_count(Collective::kAllToAll, 1024, 4, 16) == 16);
}

}  // namespace
}  // namespace dtplan::collective
