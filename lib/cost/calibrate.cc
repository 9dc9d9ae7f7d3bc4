#include "cost/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "cost/collective_model.h"

namespace dtplan::cost {

namespace {

struct Key {
  collective::Collective collective;
  GroupTopology layout;
};

bool same(const Key& a, const Key& b) {
  return a.collective == b.collective && a.layout == b.layout;
}

struct Group {
  Key key;
  std::map<std::int64_t, std::pair<double, int>> sum_count;  // size -> (sum of times, count)
  std::vector<const NcclTestsRun*> runs;
};

// Worst relative error of `model` against the logged rows of `runs`, in percent.
core::Result<double> worst_error_pct(const CollectiveModel& model, const Group& g) {
  double worst = 0;
  for (const NcclTestsRun* run : g.runs) {
    for (const NcclTestsRow& row : run->rows) {
      DTPLAN_TRY(CollectiveCost c, model.cost(g.key.collective, row.size_bytes, g.key.layout));
      if (row.time_us > 0) {
        worst = std::max(worst, std::abs(c.time_us - row.time_us) / row.time_us * 100.0);
      }
    }
  }
  return worst;
}

// Isotonic regression (pool adjacent violators, weighted by the rows behind each size): the
// non-decreasing sequence closest to the times in least squares. A noisy dip between two sizes
// is split between them instead of being pushed onto one.
void make_monotone(std::vector<MeasuredPoint>& points, const std::vector<double>& weights) {
  struct Block {
    double value;
    double weight;
    std::size_t count;
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < points.size(); ++i) {
    blocks.push_back({points[i].time_us, weights[i], 1});
    while (blocks.size() >= 2 && blocks[blocks.size() - 2].value > blocks.back().value) {
      Block last = blocks.back();
      blocks.pop_back();
      Block& prev = blocks.back();
      prev.value =
          (prev.value * prev.weight + last.value * last.weight) / (prev.weight + last.weight);
      prev.weight += last.weight;
      prev.count += last.count;
    }
  }
  std::size_t i = 0;
  for (const Block& b : blocks) {
    for (std::size_t j = 0; j < b.count; ++j) points[i++].time_us = b.value;
  }
}

}  // namespace

core::Result<Calibration> calibrate(const HardwareProfile& base, std::span<const NcclTestsRun> runs,
                                    const std::string& name) {
  if (runs.empty()) return core::Error::bad_input("calibrate: no nccl-tests runs given");
  if (name.empty()) return core::Error::bad_input("calibrate: the profile name is empty");
  std::vector<Group> groups;
  for (const NcclTestsRun& run : runs) {
    if (run.layout.max_ranks_per_node > base.node.gpus_per_node) {
      return core::Error::bad_input(run.source + ": " + describe(run.layout) + " puts " +
                                    std::to_string(run.layout.max_ranks_per_node) +
                                    " ranks on one host, but " + base.name + " has " +
                                    std::to_string(base.node.gpus_per_node) + " GPUs per node");
    }
    Key key{run.collective, run.layout};
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return same(g.key, key); });
    if (it == groups.end()) {
      groups.push_back({key, {}, {}});
      it = groups.end() - 1;
    }
    it->runs.push_back(&run);
    for (const NcclTestsRow& row : run.rows) {
      auto& [sum, count] = it->sum_count[row.size_bytes];
      sum += row.time_us;
      ++count;
    }
  }

  Calibration cal;
  cal.profile = base;
  cal.profile.name = name;
  for (const Group& g : groups) {
    MeasuredTable t;
    t.collective = g.key.collective;
    t.layout = g.key.layout;
    std::vector<double> weights;
    for (const auto& [size, sc] : g.sum_count) {
      t.points.push_back({size, sc.first / sc.second});
      weights.push_back(sc.second);
    }
    make_monotone(t.points, weights);
    for (const NcclTestsRun* run : g.runs) {
      if (!t.source.empty()) t.source += ", ";
      t.source += run->source;
    }
    auto& tables = cal.profile.measured;
    tables.erase(std::remove_if(tables.begin(), tables.end(),
                                [&](const MeasuredTable& m) {
                                  return m.collective == t.collective && m.layout == t.layout;
                                }),
                 tables.end());
    tables.push_back(std::move(t));
  }
  auto valid = validate(cal.profile);
  if (!valid.ok()) return valid.error().with_context("calibrated profile '" + name + "'");

  auto calibrated = make_collective_model(cal.profile, {ModelKind::kNccl, true, false});
  auto formulas = make_collective_model(base, {ModelKind::kNccl, false, false});
  for (const Group& g : groups) {
    CalibratedTable ct;
    ct.collective = g.key.collective;
    ct.layout = g.key.layout;
    for (const NcclTestsRun* run : g.runs) {
      ct.rows += static_cast<std::int64_t>(run->rows.size());
      if (!ct.sources.empty()) ct.sources += ", ";
      ct.sources += run->source;
    }
    ct.points = static_cast<std::int64_t>(g.sum_count.size());
    DTPLAN_TRY(ct.max_error_pct, worst_error_pct(*calibrated, g));
    DTPLAN_TRY(ct.formula_max_error_pct, worst_error_pct(*formulas, g));
    cal.tables.push_back(std::move(ct));
  }
  return cal;
}

}  // namespace dtplan::cost
