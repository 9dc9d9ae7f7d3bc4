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

// The destination's Partial dims, reduced over before the comparison, and how.
struct DstReduction {
  std::vector<bool> partial;
  std::int64_t avg_divisor = 1;    // the product of the P(avg) dims' sizes
  std::optional<ReduceOp> select;  // max or min when a Partial dim selects
};

DstReduction dst_reduction(const redist::RedistPlan& plan) {
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  DstReduction out;
  out.partial.assign(sizes.size(), false);
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    const placement::Placement& p = plan.dst.placement(m);
    if (!p.is_partial()) continue;
    out.partial[m] = true;
    if (p.reduce_op() == ReduceOp::kAvg) out.avg_divisor *= sizes[m];
    if (p.reduce_op() == ReduceOp::kMax || p.reduce_op() == ReduceOp::kMin) {
      out.select = p.reduce_op();
    }
  }
  return out;
}

// Compares every rank's result with the expected global values, group by group (the ranks that
// differ only on the destination's Partial dims, reduced together), into `report`'s element
// counts, max_error and first_wrong.
class ValueCheck {
 public:
  ValueCheck(const redist::RedistPlan& plan, const SourceValues& values, const RankTensors& tensors)
      : plan_(plan),
        tensors_(tensors),
        reduction_(dst_reduction(plan)),
        dst_flats_(plan.src.shape()) {
    std::int64_t numel = 1;
    for (std::int64_t s : plan.src.shape()) numel *= s;
    values.globals(numel, global_, tolerance_);
  }

  core::Status run(const RedistExecutor& ex, VerifyReport& report) {
    for (const auto& [key, members] : group_by(ex, reduction_.partial)) {
      DTPLAN_CHECK(check_group(ex, members, report));
    }
    return {};
  }

 private:
  // A lone member already compared, its flat indices and its count of wrong elements.
  struct Checked {
    const std::vector<std::int64_t>* flats;
    const Tensor* tensor;
    std::int64_t wrong;
  };

  core::Status check_group(const RedistExecutor& ex, const std::vector<std::int64_t>& members,
                           VerifyReport& report) {
    const Coord c = *ex.coordinate(members[0]);
    DTPLAN_TRY(std::vector<placement::IndexSet> owned,
               placement::owned_indices(plan_.dst, plan_.mesh.shape, c));
    const Shape expected_shape = owned_counts(owned);
    const std::vector<std::int64_t>& flats = dst_flats_.get(owned);
    if (!shapes_match(members, expected_shape, static_cast<std::int64_t>(flats.size()), report)) {
      return {};
    }
    // A lone member bitwise equal to one already checked at the same indices (a replica) has
    // the same errors: reuse its count instead of comparing again.
    const std::int64_t wrong_before = report.wrong_elements;
    if (members.size() == 1) {
      const Tensor& t = tensors_.at(members[0]);
      auto it = std::find_if(checked_.begin(), checked_.end(),
                             [&](const Checked& k) { return k.flats == &flats && *k.tensor == t; });
      if (it != checked_.end()) {
        report.wrong_elements += it->wrong;
        return {};
      }
    }
    compare(members, flats, reduce(members), report);
    if (members.size() == 1) {
      checked_.push_back({&flats, &tensors_.at(members[0]), report.wrong_elements - wrong_before});
    }
    return {};
  }

  // Counts the group's elements; false (each wrong-shaped member's elements counted wrong) when
  // a member's shape is not `expected_shape` or it holds no data.
  bool shapes_match(const std::vector<std::int64_t>& members, const Shape& expected_shape,
                    std::int64_t expected, VerifyReport& report) const {
    bool ok = true;
    for (std::int64_t r : members) {
      const Tensor& t = tensors_.at(r);
      if (t.shape() != expected_shape || !t.has_data()) {
        ok = false;
        report.wrong_elements += std::max<std::int64_t>(expected, 1);
        if (report.first_wrong.empty()) {
          report.first_wrong = "rank " + std::to_string(r) + " holds " + describe(t) +
                               ", expected shape " + shape_string(expected_shape);
        }
      }
      report.elements += expected;
    }
    return ok;
  }

  // The members' values reduced over the destination's Partial dims.
  std::vector<double> reduce(const std::vector<std::int64_t>& members) const {
    const std::optional<ReduceOp>& select = reduction_.select;
    std::vector<double> reduced = to_doubles(tensors_.at(members[0]));
    for (std::size_t j = 1; j < members.size(); ++j) {
      const std::vector<double> other = to_doubles(tensors_.at(members[j]));
      for (std::size_t e = 0; e < reduced.size(); ++e) {
        if (!select) {
          reduced[e] += other[e];
        } else {
          reduced[e] = *select == ReduceOp::kMax ? std::max(reduced[e], other[e])
                                                 : std::min(reduced[e], other[e]);
        }
      }
    }
    if (!select) {
      for (double& x : reduced) x /= static_cast<double>(reduction_.avg_divisor);
    }
    return reduced;
  }

  void compare(const std::vector<std::int64_t>& members, const std::vector<std::int64_t>& flats,
               const std::vector<double>& reduced, VerifyReport& report) const {
    for (std::size_t e = 0; e < reduced.size(); ++e) {
      const double want = global_[static_cast<std::size_t>(flats[e])];
      const double error = std::fabs(reduced[e] - want);
      if (error == 0) continue;
      report.max_error = std::max(report.max_error, std::isnan(error) ? INFINITY : error);
      if (error <= tolerance_[static_cast<std::size_t>(flats[e])]) continue;
      report.wrong_elements += static_cast<std::int64_t>(members.size());
      if (report.first_wrong.empty()) {
        report.first_wrong = "rank " + std::to_string(members[0]) + " local element " +
                             std::to_string(e) + " (global flat index " + std::to_string(flats[e]) +
                             "): got " + number(reduced[e]) + ", expected " + number(want);
      }
    }
  }

  const redist::RedistPlan& plan_;
  const RankTensors& tensors_;
  DstReduction reduction_;
  FlatIndexCache dst_flats_;
  std::vector<double> global_;
  std::vector<double> tolerance_;
  std::vector<Checked> checked_;
};

// Replicas: ranks that differ only on the destination's Replicate dims, and how many distinct
// tensors each set holds.
void check_replicas(const redist::RedistPlan& plan, const RedistExecutor& ex,
                    const RankTensors& tensors, VerifyReport& report) {
  const std::span<const std::int64_t> sizes = plan.mesh.shape;
  std::vector<bool> replicated(sizes.size(), false);
  for (std::size_t m = 0; m < sizes.size(); ++m) {
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

  RankTensors tensors(world);
  FlatIndexCache src_flats(plan.src.shape());
  for (std::int64_t r : ex.ranks()) {
    DTPLAN_TRY(Tensor t, source_shard(plan, values, *ex.coordinate(r), &src_flats));
    tensors.set(r, std::move(t));
  }
  DTPLAN_CHECK(ex.run(pg, tensors));

  VerifyReport report;
  report.ranks = static_cast<std::int64_t>(ex.ranks().size());
  report.values = values.kind();
  report.exact = values.exact();
  ValueCheck value_check(plan, values, tensors);
  DTPLAN_CHECK(value_check.run(ex, report));
  check_replicas(plan, ex, tensors, report);
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
