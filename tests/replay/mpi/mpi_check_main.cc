// dtplan_mpi_check: runs every collective of the MPI backend on several group layouts of the
// MPI world, for every dtype and reduction op, on random data with fixed seeds, and compares each
// rank's result with a FakeProcessGroup run of the same call in ring order (every process runs
// the fake for the whole world on the same inputs). Registered with CTest under mpirun -np 4 and
// -np 8 (tests/CMakeLists.txt).
//
// Exactness: data movement, integer reductions, max/min, and float sums of integer-valued data
// (small integers, so every partial sum is exact; avg only for power-of-two groups, where the
// premultiplication by 1/n is exact) must match bit for bit. Float sums and averages of random
// values differ from the fake only by MPI's summation order: each result must lie within
// 2 gamma_{n-1} sum|x_i| of the fake's (the sum of two orders' error bounds, x_i as they enter the
// sum, gamma_k = k u / (1 - k u), u the dtype's unit roundoff).
// Also checked: calls whose members disagree or fail their checks fail on every member (no hang),
// the communicator cache, and the timing harness on the MPI world. Exit code 0 iff every check on
// every rank passed.

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "replay/mpi/mpi_process_group.h"
#include "replay/timing.h"
#include "sim/fake_process_group.h"
#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;
using sim::Tensor;

struct Checker {
  std::int64_t rank = 0;
  std::int64_t checks = 0;
  std::int64_t failures = 0;
  void fail(const std::string& what) {
    ++failures;
    if (failures <= 8)
      std::fprintf(stderr, "mpi_check rank %lld: FAIL %s\n", (long long)rank, what.c_str());
  }
  void expect(bool ok, const std::string& what) {
    ++checks;
    if (!ok) fail(what);
  }
};

// --- Data -------------------------------------------------------------------------------------

enum class Data : std::uint8_t { kIntegerValued, kRandom };

// The element patterns random data draws from, per floating dtype: the integers -16..16 and
// the magnitudes (1 + m/1024) 2^e, m < 1024, -4 <= e <= 6 (rounded to the dtype once, here).
struct FloatValues {
  std::vector<std::uint64_t> integers;
  std::vector<std::uint64_t> magnitudes;
};

const FloatValues& float_values(DType dtype) {
  static std::map<DType, FloatValues> tables;
  FloatValues& v = tables[dtype];
  if (v.integers.empty()) {
    for (int i = -16; i <= 16; ++i) v.integers.push_back(testing::ref_round(dtype, i));
    for (int e = -4; e <= 6; ++e) {
      for (int m = 0; m < 1024; ++m) {
        v.magnitudes.push_back(testing::ref_round(dtype, std::ldexp(1.0 + m / 1024.0, e)));
      }
    }
  }
  return v;
}

// Floats: integers in [-16, 16] or magnitudes 2^-4 .. 2^7 of random sign (sums of 8 stay far
// from f16's overflow); other dtypes: random bit patterns (integer sums wrap alike).
Tensor make_tensor(DType dtype, const sim::Shape& shape, Data data, std::mt19937_64& rng) {
  Tensor t = Tensor::uninitialized(dtype, shape).value();
  if (!core::is_floating(dtype) || dtype == DType::kC64) {
    for (std::int64_t b = 0; b < t.nbytes(); b += 8) {  // 8 random bytes per draw
      const std::uint64_t v = rng();
      std::memcpy(t.data() + b, &v,
                  static_cast<std::size_t>(std::min<std::int64_t>(8, t.nbytes() - b)));
    }
    return t;
  }
  const FloatValues& values = float_values(dtype);
  const std::uint64_t sign_bit = std::uint64_t{1} << (8 * t.element_bytes() - 1);
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const std::uint64_t v = rng();  // one draw per element, its bit fields used separately
    std::uint64_t bits = 0;
    if (data == Data::kIntegerValued) {
      bits = values.integers[v % values.integers.size()];
    } else {
      bits = values.magnitudes[(v >> 8) % values.magnitudes.size()];
      if (((v >> 40) & 1U) != 0) bits |= sign_bit;
    }
    testing::set_element_bits(t, i, bits);
  }
  return t;
}

// --- Layouts ----------------------------------------------------------------------------------

std::vector<std::vector<sim::Group>> layouts(std::int64_t world) {
  std::vector<std::vector<sim::Group>> out;
  sim::Group all, reversed;
  for (std::int64_t r = 0; r < world; ++r) all.push_back(r);
  reversed.assign(all.rbegin(), all.rend());
  out.push_back({all});
  out.push_back({reversed});
  std::vector<sim::Group> pairs, strided(2), singles;
  for (std::int64_t r = 0; r + 1 < world; r += 2) pairs.push_back({r, r + 1});
  for (std::int64_t r = 0; r < world; ++r) strided[static_cast<std::size_t>(r % 2)].push_back(r);
  for (std::int64_t r = 0; r < world; ++r) singles.push_back({r});
  out.push_back(pairs);
  out.push_back(strided);
  out.push_back(singles);
  out.push_back({{world - 1, 1}});  // most ranks idle
  // A random permutation cut into groups of three (the rest idle): n not a power of two.
  std::mt19937_64 rng(7);
  sim::Group perm = all;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<sim::Group> threes;
  for (std::size_t i = 0; i + 3 <= perm.size(); i += 3)
    threes.push_back({perm[i], perm[i + 1], perm[i + 2]});
  out.push_back(threes);
  if (world == 8) {  // the dims of a 2x2x2 mesh
    out.push_back({{0, 4}, {1, 5}, {2, 6}, {3, 7}});
    out.push_back({{0, 2}, {1, 3}, {4, 6}, {5, 7}});
    out.push_back({{0, 1, 2, 3}, {4, 5, 6, 7}});
    out.push_back({{6, 2, 4, 0}, {7, 3, 5, 1}});
  }
  return out;
}

// --- Comparison -------------------------------------------------------------------------------

double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 0x1p-24;
    case DType::kF64:
      return 0x1p-53;
    case DType::kBF16:
      return 0x1p-8;
    default:
      return 0x1p-11;
  }
}

bool power_of_two(std::int64_t n) { return (n & (n - 1)) == 0; }

// The sum of |x| over the members' contributions to input element `offset`, as they enter the
// sum (divided by n for avg).
double abs_contributions(const sim::CollectiveCall& call, const sim::Group& group,
                         const sim::RankTensors& inputs, std::int64_t offset) {
  double sum = 0;
  for (std::int64_t r : group) {
    const Tensor& t = inputs.at(r);
    sum += std::fabs(testing::ref_widen(t.dtype(), testing::element_bits(t, offset)));
  }
  return call.op == sim::ReduceOp::kAvg ? sum / static_cast<double>(group.size()) : sum;
}

void compare(Checker& ck, const sim::CollectiveCall& call, const sim::Group* group, Data data,
             const sim::RankTensors& inputs, const Tensor& got, const Tensor& want) {
  const std::string what = sim::describe(call) + " " + std::string(core::dtype_name(want.dtype())) +
                           (data == Data::kRandom ? " random" : " integer-valued");
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    return ck.fail(what + ": got " + sim::describe(got) + ", want " + sim::describe(want));
  }
  const DType dtype = want.dtype();
  const bool reduces = collective::facts(call.collective).reduces;
  const auto n = group != nullptr ? static_cast<std::int64_t>(group->size()) : 1;
  const bool float_sum = reduces && core::is_floating(dtype) &&
                         (call.op == sim::ReduceOp::kSum || call.op == sim::ReduceOp::kAvg);
  const bool exact =
      !float_sum || group == nullptr ||
      (data == Data::kIntegerValued && (call.op == sim::ReduceOp::kSum || power_of_two(n)));
  for (std::int64_t e = 0; e < want.numel(); ++e) {
    const std::uint64_t g = testing::element_bits(got, e), w = testing::element_bits(want, e);
    ++ck.checks;  // (messages are built only for failures: this loop runs millions of times)
    if (exact) {
      if (g != w) {
        ck.fail(what + ": element " + std::to_string(e) + " bits " + std::to_string(g) + ", want " +
                std::to_string(w));
      }
      continue;
    }
    // The input element reduced into output element e.
    const std::int64_t offset =
        call.collective == Collective::kReduceScatter
            ? e + static_cast<std::int64_t>(std::find(group->begin(), group->end(), ck.rank) -
                                            group->begin()) *
                      want.numel()
            : e;
    const double abs_sum = abs_contributions(call, *group, inputs, offset);
    const double k = static_cast<double>(n - 1) * unit_roundoff(dtype);
    const double bound = 2 * k / (1 - k) * abs_sum;
    const double diff = std::fabs(testing::ref_widen(dtype, g) - testing::ref_widen(dtype, w));
    if (!(diff <= bound)) {
      ck.fail(what + ": element " + std::to_string(e) + " = " +
              std::to_string(testing::ref_widen(dtype, g)) + ", fake " +
              std::to_string(testing::ref_widen(dtype, w)) + ", bound " + std::to_string(bound));
    }
  }
}

// --- The checks -------------------------------------------------------------------------------

const sim::Group* group_of(const std::vector<sim::Group>& groups, std::int64_t rank) {
  for (const sim::Group& g : groups) {
    if (std::find(g.begin(), g.end(), rank) != g.end()) return &g;
  }
  return nullptr;
}

// Inputs of every rank: per group one random shape fitting the collective.
sim::RankTensors make_inputs(const sim::CollectiveCall& call, std::int64_t world, DType dtype,
                             Data data, bool wide, std::mt19937_64& rng) {
  sim::RankTensors t(world);
  for (std::int64_t r = 0; r < world; ++r) t.set(r, make_tensor(dtype, {3}, data, rng));
  for (const sim::Group& g : call.groups) {
    const auto n = static_cast<std::int64_t>(g.size());
    const auto rows = static_cast<std::int64_t>(1 + rng() % 3);
    // Small, or wide enough for MPI's rendezvous protocol and segmented algorithms (and more
    // than one of the reduce engine's 8 KiB blocks).
    const auto cols = static_cast<std::int64_t>(wide ? 2048 + rng() % 64 : 1 + rng() % 40);
    const std::int64_t dim0 = call.collective == Collective::kAllGather ? rows : rows * n;
    for (std::int64_t r : g) t.set(r, make_tensor(dtype, {dim0, cols}, data, rng));
  }
  if (call.collective == Collective::kAllReduce && rng() % 4 == 0) {  // 0-d tensors too
    for (const sim::Group& g : call.groups) {
      for (std::int64_t r : g) t.set(r, make_tensor(dtype, {}, data, rng));
    }
  }
  return t;
}

void check_collectives(Checker& ck, MpiProcessGroup& pg) {
  const std::int64_t world = pg.world_size();
  const DType reducible[] = {DType::kF32, DType::kBF16, DType::kF16,
                             DType::kF64, DType::kI32,  DType::kI64};
  const DType movable[] = {DType::kF32, DType::kBF16, DType::kF16, DType::kF64,
                           DType::kI32, DType::kI64,  DType::kU8,  DType::kC64};
  const sim::ReduceOp ops[] = {sim::ReduceOp::kSum, sim::ReduceOp::kAvg, sim::ReduceOp::kMax,
                               sim::ReduceOp::kMin};
  auto fake = sim::FakeProcessGroup::create({.world_size = world, .order = sim::OrderPolicy::kRing})
                  .value();
  std::uint64_t seed = 1;
  bool first_layout = true;
  for (const std::vector<sim::Group>& groups : layouts(world)) {
    const bool wide_layout = first_layout;  // wide tensors on the whole world only (time)
    first_layout = false;
    for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllReduce,
                         Collective::kAllToAll, Collective::kBroadcast}) {
      const bool reduces = collective::facts(c).reduces;
      for (DType dtype :
           reduces ? std::span<const DType>(reducible) : std::span<const DType>(movable)) {
        for (sim::ReduceOp op : reduces ? std::span<const sim::ReduceOp>(ops)
                                        : std::span<const sim::ReduceOp>(ops, 1)) {
          for (Data data : {Data::kIntegerValued, Data::kRandom}) {
            if (data == Data::kIntegerValued && !(reduces && core::is_floating(dtype))) continue;
            std::mt19937_64 rng(seed++);  // the same on every process
            const sim::CollectiveCall call{c, groups, op,
                                           static_cast<std::int64_t>(rng() % groups[0].size())};
            if (c == Collective::kBroadcast &&
                std::any_of(groups.begin(), groups.end(), [&](const auto& g) {
                  return call.root >= static_cast<std::int64_t>(g.size());
                })) {
              continue;
            }
            const bool wide = wide_layout && rng() % 4 == 0;
            const sim::RankTensors inputs = make_inputs(call, world, dtype, data, wide, rng);
            sim::RankTensors want = inputs;
            if (!fake.run(call, want).ok()) {
              ck.fail("fake: " + sim::describe(call));
              continue;
            }
            sim::RankTensors mine(world);
            mine.set(ck.rank, inputs.at(ck.rank));
            const core::Status s = pg.run(call, mine);
            ck.expect(s.ok(), sim::describe(call) + ": " + (s.ok() ? "" : s.error().message));
            if (!s.ok()) continue;
            compare(ck, call, group_of(groups, ck.rank), data, inputs, mine.at(ck.rank),
                    want.at(ck.rank));
          }
        }
      }
    }
  }
  // One split per distinct canonical group list, reused by every later call.
  std::set<std::vector<sim::Group>> distinct;
  for (const std::vector<sim::Group>& groups : layouts(world)) {
    distinct.insert(canonical_groups(groups));
  }
  ck.expect(pg.split_count() == distinct.size(), "split count " + std::to_string(pg.split_count()) +
                                                     ", want " + std::to_string(distinct.size()));
}

// Members that disagree or fail their checks: every member fails, nobody hangs.
void check_errors(Checker& ck, MpiProcessGroup& pg) {
  const std::int64_t world = pg.world_size();
  sim::Group all;
  for (std::int64_t r = 0; r < world; ++r) all.push_back(r);
  std::mt19937_64 rng(99);
  auto tensor = [&](sim::Shape shape, DType dtype = DType::kF32) {
    return make_tensor(dtype, shape, Data::kRandom, rng);
  };
  {  // rank 0 passes another shape
    sim::RankTensors t(world);
    t.set(ck.rank, tensor(ck.rank == 0 ? sim::Shape{5} : sim::Shape{4}));
    const Tensor before = t.at(ck.rank);
    const core::Status s = pg.all_reduce({all}, sim::ReduceOp::kSum, t);
    ck.expect(!s.ok() && s.error().kind == core::ErrorKind::kBadInput &&
                  s.error().message.find("different dtypes, shapes or calls") != std::string::npos,
              "shape mismatch: " + (s.ok() ? std::string("ok") : s.error().message));
    ck.expect(t.at(ck.rank) == before, "shape mismatch changed the tensor");
  }
  {  // the last rank holds no tensor
    sim::RankTensors t(world);
    if (ck.rank != world - 1) t.set(ck.rank, tensor({world}));
    const core::Status s = pg.all_gather({all}, t);
    const bool last = ck.rank == world - 1;
    ck.expect(
        !s.ok() && s.error().kind == core::ErrorKind::kBadInput &&
            s.error().message.find(last ? "has no tensor" : "another member") != std::string::npos,
        "missing tensor: " + (s.ok() ? std::string("ok") : s.error().message));
  }
  {  // an unreducible dtype: kUnsupported everywhere
    sim::RankTensors t(world);
    t.set(ck.rank, tensor({world}, DType::kU8));
    const core::Status s = pg.reduce_scatter({all}, sim::ReduceOp::kSum, t);
    ck.expect(!s.ok() && s.error().kind == core::ErrorKind::kUnsupported,
              "u8 reduce_scatter: " + (s.ok() ? std::string("ok") : s.error().message));
  }
  {  // ranks issue different ops on the same groups
    sim::RankTensors t(world);
    t.set(ck.rank, tensor({2}));
    const core::Status s =
        pg.all_reduce({all}, ck.rank == 1 ? sim::ReduceOp::kMax : sim::ReduceOp::kSum, t);
    ck.expect(!s.ok() && s.error().kind == core::ErrorKind::kBadInput,
              "op mismatch: " + (s.ok() ? std::string("ok") : s.error().message));
  }
  {  // after the errors, the group still works
    sim::RankTensors t(world);
    t.set(ck.rank, Tensor::from_values<std::int64_t>({1}, {ck.rank + 1}).value());
    ck.expect(pg.all_reduce({all}, sim::ReduceOp::kSum, t).ok() &&
                  t.at(ck.rank).values<std::int64_t>()[0] == world * (world + 1) / 2,
              "all_reduce after errors");
  }
}

// Complex tensors reduce as pairs of f32: sum and avg equal the fake process group's bit for bit
// (integer parts, and avg's 1/n is a power of two here); max is refused on every member.
void check_complex(Checker& ck, MpiProcessGroup& pg) {
  const std::int64_t world = pg.world_size();
  sim::Group all;
  for (std::int64_t r = 0; r < world; ++r) all.push_back(r);
  auto values = [&](std::int64_t rank) {
    std::vector<std::complex<float>> v;
    for (std::int64_t i = 0; i < 2 * world; ++i) {
      v.emplace_back(static_cast<float>(rank + i), static_cast<float>(rank - 2 * i));
    }
    return Tensor::from_values<std::complex<float>>(DType::kC64, {2 * world},
                                                    std::span<const std::complex<float>>(v))
        .value();
  };
  auto fake = sim::FakeProcessGroup::create({.world_size = world}).value();
  for (Collective c : {Collective::kReduceScatter, Collective::kAllReduce}) {
    for (sim::ReduceOp op : {sim::ReduceOp::kSum, sim::ReduceOp::kAvg}) {
      const sim::CollectiveCall call{c, {all}, op, 0};
      sim::RankTensors want(world);
      for (std::int64_t r = 0; r < world; ++r) want.set(r, values(r));
      ck.expect(fake.run(call, want).ok(), "fake: c64 " + sim::describe(call));
      sim::RankTensors mine(world);
      mine.set(ck.rank, values(ck.rank));
      const core::Status s = pg.run(call, mine);
      ck.expect(s.ok() && mine.at(ck.rank) == want.at(ck.rank),
                "c64 " + sim::describe(call) + ": " + (s.ok() ? "differs" : s.error().message));
    }
  }
  sim::RankTensors t(world);
  t.set(ck.rank, values(ck.rank));
  const core::Status s = pg.all_reduce({all}, sim::ReduceOp::kMax, t);
  ck.expect(!s.ok() && s.error().kind == core::ErrorKind::kUnsupported,
            "c64 all_reduce(max): " + (s.ok() ? std::string("ok") : s.error().message));
}

void check_timing(Checker& ck, MpiProcessGroup& pg) {
  const std::int64_t world = pg.world_size();
  sim::Group all;
  for (std::int64_t r = 0; r < world; ++r) all.push_back(r);
  sim::RankTensors t(world);
  std::mt19937_64 rng(5);
  t.set(ck.rank, make_tensor(DType::kF32, {world * 256}, Data::kRandom, rng));
  for (Collective c :
       {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter}) {
    const sim::CollectiveCall call{c, {all}, sim::ReduceOp::kSum, 0};
    auto timing = time_call(pg, call, t, {.warmup_iters = 1, .iters = 5, .launches_per_iter = 2});
    ck.expect(timing.ok(), "time_call: " + (timing.ok() ? "" : timing.error().message));
    if (!timing.ok()) continue;
    const std::int64_t rank_bytes = world * 256 * 4;
    const std::int64_t s = c == Collective::kAllGather ? rank_bytes * world : rank_bytes;
    ck.expect(timing->group_size == world && timing->bytes == s,
              "time_call S " + std::to_string(timing->bytes));
    ck.expect(timing->min_us <= timing->median_us && timing->median_us <= timing->max_us &&
                  timing->median_us > 0,
              "time_call order");
    ck.expect(timing->algbw_gbps == algbw_gbps(s, timing->median_us), "time_call algbw");
  }
}

int run() {
  auto env = MpiEnvironment::acquire();
  if (!env.ok()) {
    std::fprintf(stderr, "mpi_check: %s\n", env.error().message.c_str());
    return 1;
  }
  auto pg = MpiProcessGroup::create(env.value());
  if (!pg.ok()) {
    std::fprintf(stderr, "mpi_check: %s\n", pg.error().message.c_str());
    return 1;
  }
  Checker ck;
  ck.rank = pg.value()->rank();
  check_collectives(ck, *pg.value());
  check_errors(ck, *pg.value());
  check_complex(ck, *pg.value());
  check_timing(ck, *pg.value());
  auto totals = pg.value()->reduce_over_world(
      {static_cast<double>(ck.checks), static_cast<double>(ck.failures)}, sim::ReduceOp::kSum);
  if (!totals.ok()) {
    std::fprintf(stderr, "mpi_check: %s\n", totals.error().message.c_str());
    return 1;
  }
  if (ck.rank == 0) {
    std::printf("mpi_check: %lld processes, %.0f checks, %.0f failures\n",
                static_cast<long long>(pg.value()->world_size()), totals.value()[0],
                totals.value()[1]);
  }
  return totals.value()[1] == 0 ? 0 : 1;
}

}  // namespace
}  // namespace dtplan::replay

int main() { return dtplan::replay::run(); }
