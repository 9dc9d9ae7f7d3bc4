#include "sim/verify.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/strings.h"
#include "placement/owned_indices.h"
#include "sim/redist_executor.h"
#include "sim/source_shards.h"

namespace dtplan::sim {

namespace {

using Coord = std::vector<std::int64_t>;
using placement::ReduceOp;

// Ranks grouped by their coordinate with the mesh dims in `free` set to 0, in rank order.
std::map<Coord, std::vector<std::int64_t>> group_by(const RedistExecutor& ex,
                                                    const std::vector<bool>& free) {
  std::map<Coord, std::vector<std::int64_t>> out;
  for (std::int64_t r : ex.ranks()) {
    Coord key = *ex.coordinate(r);
    for (std::size_t m = 0; m < key.size(); ++m) {
      if (free[m]) key[m] = 0;
    }
    out[key].push_back(r);
  }
  return out;
}

core::Status check_memory(const RedistExecutor& ex, const redist::RedistPlan& plan,
                          std::int64_t max_bytes) {
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  const auto es = static_cast<double>(core::dtype_bytes(plan.src.dtype()));
  double worst = 0;
  for (std::size_t i = 0; i <= ex.num_steps(); ++i) {
    double total = 0;
    for (std::int64_t r : ex.ranks()) {
      const Coord c = *ex.coordinate(r);
      double numel = 1;
      for (std::int64_t s : redist::local_shape(plan.src.shape(), ex.state_before(i), sizes, c)) {
        numel *= static_cast<double>(s);
      }
      total += numel * es;
    }
    worst = std::max(worst, total);
  }
  // Input, output and padded copies live at once during a step.
  if (3 * worst > static_cast<double>(max_bytes)) {
    return core::Error::unsupported("verify: the run would hold about " +
                                    std::to_string(static_cast<std::int64_t>(3 * worst)) +
                                    " bytes over all ranks, more than the limit of " +
                                    std::to_string(max_bytes) + "; use a smaller --shape");
  }
  return {};
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

}  // namespace

core::Result<VerifyReport> verify_plan(const redist::RedistPlan& plan,
                                       const VerifyOptions& options) {
  DTPLAN_TRY(RedistExecutor ex, RedistExecutor::create(plan));
  const std::int64_t world = options.world_size == 0 ? ex.world_size() : options.world_size;
  if (world < ex.world_size()) {
    return core::Error::bad_input("verify: a world of " + std::to_string(world) +
                                  " ranks is smaller than the plan's mesh (ranks up to " +
                                  std::to_string(ex.world_size() - 1) + ")");
  }
  DTPLAN_TRY(SourceValues values, SourceValues::make(plan, options.values, options.seed));
  DTPLAN_CHECK(check_memory(ex, plan, options.max_bytes));
  FakeProcessGroupOptions pg_options;
  pg_options.world_size = world;
  pg_options.gpus_per_node = plan.mesh.gpus_per_node;
  pg_options.order = options.order;
  pg_options.hardware = options.hardware;
  DTPLAN_TRY(FakeProcessGroup pg, FakeProcessGroup::create(pg_options));

  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  const std::vector<std::int64_t>& shape = plan.src.shape();
  const std::size_t ndim = sizes.size();
  RankTensors tensors(world);
  FlatIndexCache src_flats(shape);
  for (std::int64_t r : ex.ranks()) {
    DTPLAN_TRY(Tensor t, source_shard(plan, values, *ex.coordinate(r), &src_flats));
    tensors.set(r, std::move(t));
  }
  DTPLAN_CHECK(ex.run(pg, tensors));

  VerifyReport report;
  report.ranks = static_cast<std::int64_t>(ex.ranks().size());
  report.values = values.kind();
  report.exact = values.exact();
  std::int64_t numel = 1;
  for (std::int64_t s : shape) numel *= s;
  std::vector<double> global;
  std::vector<double> tolerance;
  values.globals(numel, global, tolerance);

  // Destination Partial dims: reduced over before the comparison.
  std::vector<bool> partial(ndim, false);
  std::int64_t avg_divisor = 1;
  std::optional<ReduceOp> select;
  for (std::size_t m = 0; m < ndim; ++m) {
    const placement::Placement& p = plan.dst.placement(m);
    if (!p.is_partial()) continue;
    partial[m] = true;
    if (p.reduce_op() == ReduceOp::kAvg) avg_divisor *= sizes[m];
    if (p.reduce_op() == ReduceOp::kMax || p.reduce_op() == ReduceOp::kMin) select = p.reduce_op();
  }
  FlatIndexCache dst_flats(shape);
  struct Checked {
    const std::vector<std::int64_t>* flats;
    const Tensor* tensor;
    std::int64_t wrong;
  };
  std::vector<Checked> checked;
  for (const auto& [key, members] : group_by(ex, partial)) {
    const Coord c = *ex.coordinate(members[0]);
    DTPLAN_TRY(std::vector<placement::IndexSet> owned,
               placement::owned_indices(plan.dst, sizes, c));
    const Shape expected_shape = owned_counts(owned);
    const std::vector<std::int64_t>& flats = dst_flats.get(owned);
    const auto expected = static_cast<std::int64_t>(flats.size());
    bool shapes_ok = true;
    for (std::int64_t r : members) {
      const Tensor& t = tensors.at(r);
      if (t.shape() != expected_shape || !t.has_data()) {
        shapes_ok = false;
        report.wrong_elements += std::max<std::int64_t>(expected, 1);
        if (report.first_wrong.empty()) {
          report.first_wrong = "rank " + std::to_string(r) + " holds " + describe(t) +
                               ", expected shape " + shape_string(expected_shape);
        }
      }
      report.elements += expected;
    }
    if (!shapes_ok) continue;
    // A lone member bitwise equal to one already checked at the same indices (a replica) has
    // the same errors: reuse its count instead of comparing again.
    const std::int64_t wrong_before = report.wrong_elements;
    if (members.size() == 1) {
      const Tensor& t = tensors.at(members[0]);
      auto it = std::find_if(checked.begin(), checked.end(),
                             [&](const Checked& k) { return k.flats == &flats && *k.tensor == t; });
      if (it != checked.end()) {
        report.wrong_elements += it->wrong;
        continue;
      }
    }
    std::vector<double> reduced = to_doubles(tensors.at(members[0]));
    for (std::size_t j = 1; j < members.size(); ++j) {
      const std::vector<double> other = to_doubles(tensors.at(members[j]));
      for (std::size_t e = 0; e < reduced.size(); ++e) {
        if (!select) {
          reduced[e] += other[e];
        } else {
          reduced[e] = *select == ReduceOp::kMax ? std::max(reduced[e], other[e])
                                                 : std::min(reduced[e], other[e]);
        }
      }
    }
    for (std::size_t e = 0; e < reduced.size(); ++e) {
      if (!select) reduced[e] /= static_cast<double>(avg_divisor);
      const double want = global[static_cast<std::size_t>(flats[e])];
      const double error = std::fabs(reduced[e] - want);
      if (error == 0) continue;
      report.max_error = std::max(report.max_error, std::isnan(error) ? INFINITY : error);
      if (!(error <= tolerance[static_cast<std::size_t>(flats[e])])) {
        report.wrong_elements += static_cast<std::int64_t>(members.size());
        if (report.first_wrong.empty()) {
          report.first_wrong = "rank " + std::to_string(members[0]) + " local element " +
                               std::to_string(e) + " (global flat index " +
                               std::to_string(flats[e]) + "): got " + number(reduced[e]) +
                               ", expected " + number(want);
        }
      }
    }
    if (members.size() == 1) {
      checked.push_back({&flats, &tensors.at(members[0]), report.wrong_elements - wrong_before});
    }
  }

  // Replicas: ranks that differ only on the destination's Replicate dims.
  std::vector<bool> replicated(ndim, false);
  for (std::size_t m = 0; m < ndim; ++m) {
    replicated[m] = plan.dst.placement(m).is_replicate() && sizes[m] > 1;
  }
  for (const auto& [key, members] : group_by(ex, replicated)) {
    if (members.size() < 2) continue;
    ++report.replica_sets;
    std::vector<const Tensor*> variants;
    for (std::int64_t r : members) {
      const Tensor& t = tensors.at(r);
      if (std::none_of(variants.begin(), variants.end(),
                       [&](const Tensor* v) { return *v == t; })) {
        variants.push_back(&t);
      }
    }
    if (variants.size() > 1) ++report.differing_replica_sets;
    report.max_replica_variants =
        std::max(report.max_replica_variants, static_cast<std::int64_t>(variants.size()));
  }
  report.replicas_bitwise_equal = report.differing_replica_sets == 0;
  report.trace = pg.trace();
  return report;
}

std::string describe(const VerifyReport& r) {
  std::string out = std::to_string(r.ranks) + " ranks, " + std::to_string(r.wrong_elements) +
                    " of " + std::to_string(r.elements) + " elements wrong (" +
                    std::string(value_kind_name(r.values)) + " values, " +
                    (r.exact ? "exact" : "tolerance (C+4)u") +
                    "), replicas bitwise equal: " + (r.replicas_bitwise_equal ? "yes" : "no");
  out += " (" + std::to_string(r.differing_replica_sets) + " of " + std::to_string(r.replica_sets) +
         " replica sets differ, at most " + std::to_string(r.max_replica_variants) +
         " distinct results in one)";
  return out;
}

}  // namespace dtplan::sim
