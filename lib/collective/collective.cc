#include "collective/collective.h"

#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/strings.h"

namespace dtplan::collective {

namespace {

using BF = BusFactor;
using SC = SizeConvention;

// Facts from nccl-tests src/*.cu (GetBw factors, GetCollByteCount) and NCCL's ncclFunc names.
constexpr std::array<CollectiveFacts, kNumCollectives> kFacts = {{
    {Collective::kAllGather, "all_gather", "AllGather", "all_gather_perf", BF::kNMinusOneOverN,
     SC::kTotalOutput, false},
    {Collective::kReduceScatter, "reduce_scatter", "ReduceScatter", "reduce_scatter_perf",
     BF::kNMinusOneOverN, SC::kTotalInput, true},
    {Collective::kAllReduce, "all_reduce", "AllReduce", "all_reduce_perf", BF::kTwoNMinusOneOverN,
     SC::kWholeBuffer, true},
    {Collective::kAllToAll, "all_to_all", "AllToAll", "alltoall_perf", BF::kNMinusOneOverN,
     SC::kPerRankSendBuffer, false},
    {Collective::kBroadcast, "broadcast", "Broadcast", "broadcast_perf", BF::kOne, SC::kWholeBuffer,
     false},
    {Collective::kReduce, "reduce", "Reduce", "reduce_perf", BF::kOne, SC::kWholeBuffer, true},
    {Collective::kSendRecv, "send_recv", "SendRecv", "sendrecv_perf", BF::kOne, SC::kWholeBuffer,
     false},
    {Collective::kGather, "gather", "Gather", "gather_perf", BF::kNMinusOneOverN, SC::kTotalOutput,
     false},
    {Collective::kScatter, "scatter", "Scatter", "scatter_perf", BF::kNMinusOneOverN,
     SC::kTotalInput, false},
}};

// Lower case with '-' and '_' removed, so "All-Gather", "all_gather" and "allgather" meet.
std::string squash(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// True for the collectives whose per-rank buffer is S / n.
bool divides_by_n(Collective c) {
  SizeConvention s = facts(c).size_convention;
  return s != SizeConvention::kWholeBuffer;
}

}  // namespace

const CollectiveFacts& facts(Collective collective) {
  return kFacts[static_cast<std::size_t>(collective)];
}

std::span<const CollectiveFacts> all_facts() { return kFacts; }

std::string_view name(Collective collective) { return facts(collective).name; }

core::Result<Collective> parse_collective(std::string_view text, std::string_view what) {
  std::string key = squash(core::trim(text));
  if (key.ends_with("perf")) key.resize(key.size() - 4);
  for (const auto& f : kFacts) {
    if (key == squash(f.name) || key == squash(f.nccl_name)) return f.collective;
  }
  std::vector<std::string> names;
  for (const auto& f : kFacts) names.emplace_back(f.name);
  std::string message = std::string(what) + ": unknown collective '" + std::string(text) + "'";
  if (auto near = core::closest_name(core::trim(text), names)) {
    message += "; did you mean '" + *near + "'?";
  } else {
    message += "; expected one of " + core::join(names, ", ");
  }
  return core::Error::bad_input(std::move(message));
}

double bus_factor(Collective collective, std::int64_t n) {
  double dn = static_cast<double>(n);
  switch (facts(collective).bus_factor) {
    case BusFactor::kTwoNMinusOneOverN:
      return 2.0 * (dn - 1.0) / dn;
    case BusFactor::kNMinusOneOverN:
      return (dn - 1.0) / dn;
    case BusFactor::kOne:
      return 1.0;
  }
  return 1.0;
}

core::Result<std::int64_t> nccl_size_from_rank_bytes(Collective collective, std::int64_t rank_bytes,
                                                     std::int64_t n, std::string_view what) {
  if (rank_bytes < 0) {
    return core::Error::bad_input(std::string(what) + ": bytes must be >= 0, got " +
                                  std::to_string(rank_bytes));
  }
  if (n < 1) {
    return core::Error::bad_input(std::string(what) + ": group size must be >= 1, got " +
                                  std::to_string(n));
  }
  SizeConvention s = facts(collective).size_convention;
  if (s == SizeConvention::kTotalOutput || s == SizeConvention::kTotalInput) {
    return core::checked_mul(rank_bytes, n, what);
  }
  return rank_bytes;
}

std::int64_t rank_bytes_from_nccl_size(Collective collective, std::int64_t size, std::int64_t n) {
  SizeConvention s = facts(collective).size_convention;
  if (s == SizeConvention::kTotalOutput || s == SizeConvention::kTotalInput) return size / n;
  return size;
}

double wire_bytes_per_rank(Collective collective, std::int64_t size, std::int64_t n) {
  return bus_factor(collective, n) * static_cast<double>(size);
}

std::int64_t nccl_tests_size(Collective collective, std::int64_t size, int element_bytes,
                             std::int64_t n) {
  std::int64_t count = size / element_bytes;
  if (divides_by_n(collective)) count = (count / n) * n;
  return count * element_bytes;
}

std::int64_t nccl_tests_count(Collective collective, std::int64_t size, int element_bytes,
                              std::int64_t n) {
  std::int64_t count = size / element_bytes;
  return divides_by_n(collective) ? count / n : count;
}

}  // namespace dtplan::collective
