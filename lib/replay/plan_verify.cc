#include "replay/plan_verify.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/hash.h"
#include "placement/owned_indices.h"
#include "sim/fake_process_group.h"
#include "sim/redist_executor.h"
#include "sim/source_shards.h"
#include "sim/verify.h"

namespace dtplan::replay {

namespace {

constexpr std::uint64_t kHashMask = (std::uint64_t{1} << 52) - 1;

// FNV-1a of a tensor's shape and bytes, 52 bits (exact in a double); never 0, so that a slot of
// the summed vector that no process filled cannot match a result.
double result_hash(const sim::Tensor& t) {
  // The seed is FNV's offset basis short of its last digit; kept so that the hashes stay as
  // they were.
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t s : t.shape()) h = core::fnv1a_bytes(&s, sizeof s, h);
  if (t.has_data()) h = core::fnv1a_bytes(t.data(), static_cast<std::size_t>(t.nbytes()), h);
  const std::uint64_t v = h & kHashMask;
  return static_cast<double>(v == 0 ? 1 : v);
}

// Elements of `got` that differ from `want`: bitwise when tolerance is null, else beyond
// tolerance(e) for local element e. A shape or dtype mismatch counts every expected element.
template <class Tolerance>
std::int64_t mismatches(const sim::Tensor& got, const sim::Tensor& want, Tolerance tolerance,
                        bool exact) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape() ||
      got.has_data() != want.has_data()) {
    return std::max<std::int64_t>(want.numel(), 1);
  }
  if (!got.has_data()) return 0;
  const std::int64_t width = got.element_bytes();
  std::vector<double> g, w;
  if (!exact) {
    g = sim::to_doubles(got);
    w = sim::to_doubles(want);
  }
  std::int64_t wrong = 0;
  for (std::int64_t e = 0; e < got.numel(); ++e) {
    if (std::memcmp(got.data() + e * width, want.data() + e * width,
                    static_cast<std::size_t>(width)) == 0) {
      continue;
    }
    const auto i = static_cast<std::size_t>(e);
    if (!exact && std::fabs(g[i] - w[i]) <= 2 * tolerance(e)) continue;
    ++wrong;
  }
  return wrong;
}

}  // namespace

core::Result<PlanVerify> verify_redistribution(ReplayGroup& pg, const redist::RedistPlan& plan,
                                               const PlanVerifyOptions& options) {
  DTPLAN_TRY(sim::RedistExecutor ex, sim::RedistExecutor::create(plan));
  const std::int64_t world = pg.world_size();
  if (world < ex.world_size()) {
    return core::Error::bad_input("verify: the " + std::string(pg.backend_name()) + " world of " +
                                  std::to_string(world) + " ranks is smaller than the plan's mesh");
  }
  sim::VerifyOptions vo;
  vo.values = sim::ValueKind::kInteger;
  vo.world_size = world;
  vo.max_bytes = options.max_bytes;
  auto fake_report = sim::verify_plan(plan, vo);
  PlanVerify out;
  if (!fake_report.ok()) {
    if (fake_report.error().kind != core::ErrorKind::kUnsupported) return fake_report.error();
    out.skipped = true;
    return out;
  }
  DTPLAN_TRY(sim::SourceValues values, sim::SourceValues::make(plan, vo.values, vo.seed));

  // The fake's run of every rank, and the backend's of the held ones, from the same sources.
  const std::vector<std::int64_t> held = pg.held_ranks();
  const std::set<std::int64_t> held_set(held.begin(), held.end());
  sim::RankTensors want(world);
  sim::RankTensors got(world);
  for (std::int64_t r : ex.ranks()) {
    DTPLAN_TRY(sim::Tensor t, sim::source_shard(plan, values, *ex.coordinate(r)));
    if (held_set.count(r) != 0) got.set(r, t);
    want.set(r, std::move(t));
  }
  DTPLAN_TRY(sim::FakeProcessGroup fake,
             sim::FakeProcessGroup::create(
                 {.world_size = world, .gpus_per_node = plan.mesh.gpus_per_node}));
  DTPLAN_CHECK(ex.run(fake, want));
  DTPLAN_CHECK(ex.run(pg, got));

  // Mismatches with the fake and result hashes of the held ranks.
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  std::vector<double> sums(static_cast<std::size_t>(world) + 1, 0.0);  // hashes, then mismatches
  for (std::int64_t r : ex.ranks()) {
    if (held_set.count(r) == 0) continue;
    const std::vector<std::int64_t> coord = *ex.coordinate(r);
    std::vector<std::int64_t> flats;
    if (!values.exact()) {
      DTPLAN_TRY(std::vector<placement::IndexSet> owned,
                 placement::owned_indices(plan.dst, sizes, coord));
      flats = sim::global_flat_indices(owned, plan.src.shape());
    }
    auto tolerance = [&](std::int64_t e) {
      const auto i = static_cast<std::size_t>(e);
      return i < flats.size() ? values.tolerance(flats[i]) : 0.0;
    };
    sums.back() +=
        static_cast<double>(mismatches(got.at(r), want.at(r), tolerance, values.exact()));
    sums[static_cast<std::size_t>(r)] = result_hash(got.at(r));
  }
  DTPLAN_TRY(sums, pg.reduce_over_world(std::move(sums), sim::ReduceOp::kSum));
  if (sums.size() != static_cast<std::size_t>(world) + 1) {
    return core::Error::internal(std::string(pg.backend_name()) +
                                 ": reduce_over_world returned the wrong count");
  }
  out.elements = fake_report->elements;
  out.fake_mismatches = static_cast<std::int64_t>(sums.back());
  out.wrong_elements = fake_report->wrong_elements + out.fake_mismatches;

  // Replica sets: ranks that differ only on the destination's Replicate dims (size > 1).
  std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> sets;
  for (std::int64_t r : ex.ranks()) {
    std::vector<std::int64_t> key = *ex.coordinate(r);
    for (std::size_t m = 0; m < key.size(); ++m) {
      if (plan.dst.placement(m).is_replicate() && sizes[m] > 1) key[m] = 0;
    }
    sets[key].push_back(r);
  }
  for (const auto& [key, members] : sets) {
    if (members.size() < 2) continue;
    ++out.replica_sets;
    for (std::int64_t r : members) {
      if (sums[static_cast<std::size_t>(r)] != sums[static_cast<std::size_t>(members[0])]) {
        ++out.differing_replica_sets;
        break;
      }
    }
  }
  return out;
}

}  // namespace dtplan::replay
