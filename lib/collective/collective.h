#pragma once
// The one table of collective facts: names, the nccl-tests size convention (what "S" is), the
// nccl-tests bus-bandwidth factor and the bytes each rank puts on the wire. Every other module
// (cost model, planners, simulator, CLI) asks this table instead of repeating the facts.
//
// Size convention (nccl-tests and NCCL's tuning model, docs/reference/collectives.md §1.1): S is
// the larger of the send and receive buffers, summed over ranks where relevant:
//   all_reduce, broadcast, reduce: S = the whole vector (count x element size);
//   all_gather: S = the total output (per-rank input x n);
//   reduce_scatter: S = the total input (per-rank output x n);
//   all_to_all: S = the whole per-rank send buffer (n chunks);
//   gather, scatter: S = the n-chunk buffer of the root.

#include <cstdint>
#include <span>
#include <string_view>

#include "core/result.h"

namespace dtplan::collective {

// Declaration order is the order of listings (`dtplan cost --help`, JSON comm counts).
enum class Collective : std::uint8_t {
  kAllGather,
  kReduceScatter,
  kAllReduce,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,
  kGather,
  kScatter,
};

inline constexpr int kNumCollectives = 9;

// nccl-tests bus-bandwidth factor kinds (busbw = algbw x factor).
enum class BusFactor : std::uint8_t {
  kTwoNMinusOneOverN,  // 2(n-1)/n: all_reduce
  kNMinusOneOverN,     // (n-1)/n: all_gather, reduce_scatter, all_to_all, gather, scatter
  kOne,                // 1: broadcast, reduce, send/recv
};

// What S is, relative to the buffer one rank passes to the call.
enum class SizeConvention : std::uint8_t {
  kWholeBuffer,        // S = the per-rank buffer (all_reduce, broadcast, reduce, send/recv)
  kTotalOutput,        // S = per-rank input x n (all_gather, gather)
  kTotalInput,         // S = per-rank output x n (reduce_scatter, scatter)
  kPerRankSendBuffer,  // S = the per-rank send buffer holding n chunks (all_to_all)
};

struct CollectiveFacts {
  Collective collective;
  std::string_view name;        // "all_reduce": the dtplan spelling
  std::string_view nccl_name;   // "AllReduce": NCCL's ncclFunc name
  std::string_view nccl_tests;  // "all_reduce_perf": the nccl-tests binary ("" if none)
  BusFactor bus_factor;
  SizeConvention size_convention;
  bool reduces;  // combines values with a reduction op
};

// The facts row of a collective. Example: facts(Collective::kAllGather).name == "all_gather".
const CollectiveFacts& facts(Collective collective);

// Every row, in declaration order.
std::span<const CollectiveFacts> all_facts();

// "all_reduce" etc. Example: name(Collective::kAllToAll) == "all_to_all".
std::string_view name(Collective collective);

// Accepts the dtplan names, NCCL names ("AllReduce"), nccl-tests binaries ("alltoall_perf") and
// the spellings "allreduce", "alltoall", "all-gather" (case-insensitive). Errors name `what` and
// suggest the nearest name: "--collective: unknown collective 'all_redcue'; did you mean ...".
core::Result<Collective> parse_collective(std::string_view text, std::string_view what);

// The nccl-tests busbw factor for n ranks. Example: bus_factor(kAllReduce, 8) == 1.75.
// @pre n >= 1 (n == 1 gives 0 for the (n-1) kinds and 1 for kOne).
double bus_factor(Collective collective, std::int64_t n);

// S from the buffer one rank passes (all_gather: its input; reduce_scatter: its output; the
// others: the whole buffer). Example: nccl_size_from_rank_bytes(kAllGather, 1024, 8) == 8192.
// @post error (kBadInput, naming `what`) when the product overflows int64 or a value is negative.
core::Result<std::int64_t> nccl_size_from_rank_bytes(Collective collective, std::int64_t rank_bytes,
                                                     std::int64_t n, std::string_view what);

// The per-rank buffer for S (the inverse of nccl_size_from_rank_bytes, rounding down like
// nccl-tests does: count / n). Example: rank_bytes_from_nccl_size(kReduceScatter, 8192, 8) == 1024.
// @pre n >= 1, size >= 0.
std::int64_t rank_bytes_from_nccl_size(Collective collective, std::int64_t size, std::int64_t n);

// Bytes one rank sends on the wire with a bandwidth-optimal algorithm: factor x S, the quantity
// busbw compares to a link rate. Example: wire_bytes_per_rank(kAllReduce, 800, 8) == 1400.
// @pre n >= 1, size >= 0.
double wire_bytes_per_rank(Collective collective, std::int64_t size, std::int64_t n);

// nccl-tests rounds S down to what the buffers can hold: a multiple of n elements for the
// collectives whose per-rank buffer is S/n. Example: nccl_tests_size(kAllGather, 100, 4, 8) == 96.
// @pre n >= 1, element_bytes >= 1, size >= 0.
std::int64_t nccl_tests_size(Collective collective, std::int64_t size, int element_bytes,
                             std::int64_t n);

// The "count" column nccl-tests prints for S: elements of the per-call parameter (per rank for
// all_gather/reduce_scatter, per peer for all_to_all, the whole vector otherwise).
// Example: nccl_tests_count(kAllGather, 8192, 4, 8) == 256.
std::int64_t nccl_tests_count(Collective collective, std::int64_t size, int element_bytes,
                              std::int64_t n);

}  // namespace dtplan::collective
