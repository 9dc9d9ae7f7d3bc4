#include "solve/engine/elimination.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "core/parallel.h"
#include "solve/engine/bucket.h"

namespace dtplan::solve::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMinChunk = 4096;    // separator entries per thread, at least
constexpr std::int64_t kCheckEvery = 1024;  // entries between deadline checks

std::vector<std::int32_t> scope_union(const std::vector<const Factor*>& factors, std::int32_t x) {
  std::vector<std::int32_t> out;
  for (const Factor* f : factors) {
    for (std::int32_t v : f->scope) {
      if (v != x) out.push_back(v);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Splits a bucket into mini-buckets whose tables (x included) stay within `limit` entries:
// factors by decreasing scope size (then index), each into the first mini-bucket it fits.
std::vector<std::vector<std::int32_t>> partition(const std::vector<Factor>& factors,
                                                 const std::vector<std::int32_t>& ids,
                                                 const std::vector<std::int32_t>& domains,
                                                 std::int64_t limit) {
  std::vector<std::int32_t> sorted = ids;
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::int32_t a, std::int32_t b) {
    return factors[a].scope.size() > factors[b].scope.size();
  });
  std::vector<std::vector<std::int32_t>> groups;
  std::vector<std::vector<std::int32_t>> scopes;
  for (std::int32_t id : sorted) {
    bool placed = false;
    for (std::size_t g = 0; g < groups.size() && !placed; ++g) {
      std::vector<std::int32_t> merged = scopes[g];
      merged.insert(merged.end(), factors[id].scope.begin(), factors[id].scope.end());
      std::sort(merged.begin(), merged.end());
      merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
      double size = 1;
      for (std::int32_t v : merged) size *= domains[v];
      if (size <= static_cast<double>(limit)) {
        groups[g].push_back(id);
        scopes[g] = std::move(merged);
        placed = true;
      }
    }
    if (!placed) {
      groups.push_back({id});
      scopes.push_back(factors[id].scope);
      std::sort(scopes.back().begin(), scopes.back().end());
    }
  }
  for (auto& g : groups) std::sort(g.begin(), g.end());
  return groups;
}

}  // namespace

struct Elimination::View {
  std::vector<const Factor*> factors;
  BucketView bucket;
};

Elimination::View Elimination::view(const Bucket& b) const {
  View v;
  for (std::int32_t id : b.factor_ids) v.factors.push_back(&factors_[id]);
  std::vector<std::int32_t> sep_dims;
  for (std::int32_t s : b.separator) sep_dims.push_back(domains_[s]);
  v.bucket = make_view(v.factors, b.var, domains_[b.var], b.separator, sep_dims, memory_.rows());
  return v;
}

Elimination Elimination::run(std::vector<std::int32_t> domains, std::vector<Factor> factors,
                             const std::vector<std::int32_t>& order, const MemoryModel& memory,
                             const Limits& limits, std::int64_t mini_bucket_entries,
                             std::shared_ptr<const Outside> outside, Retain retain) {
  Elimination e;
  e.retain_ = retain;
  e.inputs_ = factors.size();
  e.domains_ = std::move(domains);
  e.memory_ = mini_bucket_entries > 0 ? MemoryModel{} : memory;
  e.outside_ = std::move(outside);
  e.limits_ = limits;
  e.mini_bucket_ = mini_bucket_entries > 0;
  for (Factor& f : factors) {
    if (mini_bucket_entries > 0) f.table = scalar_projection(f.table);
    e.factors_.push_back(std::move(f));
  }
  e.consumed_.assign(e.factors_.size(), 0);
  std::vector<std::int32_t> position(e.domains_.size(), std::numeric_limits<std::int32_t>::max());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<std::int32_t>(i);
  std::vector<std::vector<std::int32_t>> pending(order.size());
  auto place = [&](std::int32_t id) {
    std::int32_t first = std::numeric_limits<std::int32_t>::max();
    for (std::int32_t v : e.factors_[id].scope) first = std::min(first, position[v]);
    if (first == std::numeric_limits<std::int32_t>::max()) {
      e.remaining_.push_back(id);
    } else {
      pending[first].push_back(id);
    }
  };
  for (std::size_t id = 0; id < e.factors_.size(); ++id) place(static_cast<std::int32_t>(id));
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (Clock::now() > limits.deadline) {
      e.status_ = RunStatus::kTimeLimit;
      return e;
    }
    std::vector<std::vector<std::int32_t>> groups = {pending[i]};
    if (mini_bucket_entries > 0) {
      groups = partition(e.factors_, pending[i], e.domains_, mini_bucket_entries);
      if (groups.empty()) groups.emplace_back();
    }
    for (auto& group : groups) {
      Bucket b;
      b.var = order[i];
      b.factor_ids = std::move(group);
      e.buckets_.push_back(std::move(b));
      if (!e.eliminate(e.buckets_.size() - 1)) return e;
      if (e.buckets_.back().message >= 0) place(e.buckets_.back().message);
    }
  }
  std::sort(e.remaining_.begin(), e.remaining_.end());
  return e;
}

bool Elimination::keeps_argmins(const BucketView& view) const {
  return retain_ == Retain::kArgmins && !mini_bucket_ && !view.frontier &&
         view.x_dim <= std::numeric_limits<std::uint16_t>::max() + 1;
}

bool Elimination::eliminate(std::size_t index) {
  Bucket& b = buckets_[index];
  for (std::int32_t id : b.factor_ids) consumed_[id] = 1;
  if (b.factor_ids.empty()) return true;  // an unconstrained variable: decode picks label 0
  std::vector<const Factor*> fs;
  for (std::int32_t id : b.factor_ids) fs.push_back(&factors_[id]);
  b.separator = scope_union(fs, b.var);
  const View v = view(b);
  const BucketView& bv = v.bucket;
  auto table = std::make_shared<Table>();
  for (std::int32_t s : b.separator) table->dims.push_back(domains_[s]);
  table->entries = bv.entries;
  std::atomic<bool> late{false};
  const int chunks = core::chunk_count(limits_.threads, bv.entries, kMinChunk);
  auto timed_out = [&](std::int64_t k) {
    if ((k % kCheckEvery) == 0 && Clock::now() > limits_.deadline) late = true;
    return late.load(std::memory_order_relaxed);
  };
  if (!bv.frontier) {
    table->cost.resize(static_cast<std::size_t>(bv.entries));
    if (keeps_argmins(bv)) b.argmin.resize(static_cast<std::size_t>(bv.entries));
    std::uint16_t* argmin = b.argmin.empty() ? nullptr : b.argmin.data();
    const std::int64_t runs = scalar_runs(bv);
    const std::int64_t per_run = bv.entries / runs;
    core::parallel_chunks(limits_.threads, runs, (kMinChunk + per_run - 1) / per_run,
                          [&](int, std::int64_t begin, std::int64_t end) {
                            scalar_message(bv, begin, end, table->cost.data(), argmin, [&] {
                              if (Clock::now() > limits_.deadline) late = true;
                              return late.load(std::memory_order_relaxed);
                            });
                          });
  } else {
    struct Chunk {
      std::vector<std::uint32_t> counts;
      std::vector<double> cost;
      std::vector<std::int64_t> mem;
    };
    std::vector<Chunk> parts(static_cast<std::size_t>(chunks));
    std::atomic<bool> too_many{false};
    const std::vector<double>* window = outside_for(factors_.size());
    const std::int64_t max_points = limits_.max_points;
    core::parallel_chunks(chunks, bv.entries, 1, [&](int c, std::int64_t begin, std::int64_t end) {
      Chunk& part = parts[static_cast<std::size_t>(c)];
      FrontierScratch scratch;
      Odometer odo(bv, begin);
      for (std::int64_t k = begin; k < end; ++k, odo.next()) {
        if (timed_out(k - begin) || too_many.load(std::memory_order_relaxed)) return;
        const std::size_t before = part.cost.size();
        const double out = window != nullptr ? (*window)[k] : std::nan("");
        frontier_entry(bv, memory_, odo.offsets(), out, scratch, part.cost, part.mem, nullptr);
        part.counts.push_back(static_cast<std::uint32_t>(part.cost.size() - before));
        if (static_cast<std::int64_t>(part.cost.size()) > max_points / chunks) too_many = true;
      }
    });
    if (too_many && !late) {
      status_ = RunStatus::kPointLimit;
      for (std::int32_t id : b.factor_ids) consumed_[id] = 0;  // the bound still counts them
      return false;
    }
    table->frontier = true;
    table->absorbed_min = bv.absorbed_min;
    table->absorbed_max = bv.absorbed_max;
    table->begin.reserve(static_cast<std::size_t>(bv.entries) + 1);
    table->begin.push_back(0);
    for (Chunk& part : parts) {
      for (std::uint32_t n : part.counts) table->begin.push_back(table->begin.back() + n);
      table->point_cost.insert(table->point_cost.end(), part.cost.begin(), part.cost.end());
      table->point_mem.insert(table->point_mem.end(), part.mem.begin(), part.mem.end());
    }
    stats_.max_message_points = std::max<std::int64_t>(
        stats_.max_message_points, static_cast<std::int64_t>(table->point_cost.size()));
  }
  if (late) {
    status_ = RunStatus::kTimeLimit;
    for (std::int32_t id : b.factor_ids) consumed_[id] = 0;  // the bound still counts them
    return false;
  }
  ++stats_.messages;
  stats_.max_message_entries = std::max(stats_.max_message_entries, bv.entries);
  if (!b.argmin.empty()) {  // decode reads the argmins: the consumed messages can go
    for (std::int32_t id : b.factor_ids) {
      if (static_cast<std::size_t>(id) >= inputs_) factors_[id].table.reset();
    }
  }
  b.message = static_cast<std::int32_t>(factors_.size());
  factors_.push_back({std::move(table), b.separator});
  consumed_.push_back(0);
  return true;
}

const std::vector<double>* Elimination::outside_for(std::size_t id) const {
  if (outside_ == nullptr || id >= outside_->size() || (*outside_)[id].empty()) return nullptr;
  return &(*outside_)[id];
}

std::optional<Outside> Elimination::outside_tables(Outside out, Clock::time_point deadline) const {
  out.resize(factors_.size());
  std::vector<double> finite;
  std::vector<std::int32_t> infinite;
  for (std::size_t i = buckets_.size(); i-- > 0;) {
    const Bucket& b = buckets_[i];
    if (b.factor_ids.empty()) continue;
    const View v = view(b);
    const BucketView& bv = v.bucket;
    const std::vector<double>& above = out[b.message];
    for (std::int32_t id : b.factor_ids) {
      out[id].assign(static_cast<std::size_t>(factors_[id].table->entries), kInf);
    }
    const std::size_t n = bv.tables.size();
    const std::int32_t dx = bv.x_dim;
    finite.resize(static_cast<std::size_t>(dx));
    infinite.resize(static_cast<std::size_t>(dx));
    Odometer odo(bv, 0);
    for (std::int64_t k = 0; k < bv.entries; ++k, odo.next()) {
      if ((k & 1023) == 0 && Clock::now() > deadline) return std::nullopt;
      const double o = above.empty() ? 0.0 : above[k];
      if (o == kInf) continue;
      // Per x: the sum of the finite terms and the number of +inf terms. Then, for each factor,
      // rest = o + Σ of the other terms: the finite sum minus its own term, or, when its own term
      // is the only +inf one, the finite sum (the subtraction's rounding is covered by the window
      // filter's slack).
      std::fill(finite.begin(), finite.end(), o);
      std::fill(infinite.begin(), infinite.end(), 0);
      for (std::size_t j = 0; j < n; ++j) {
        const double* t = bv.tables[j]->cost.data() + odo.offsets()[j];
        const std::int64_t xs = bv.x_stride[j];
        for (std::int32_t x = 0; x < dx; ++x) {
          const double c = t[x * xs];
          if (c == kInf) {
            ++infinite[x];
          } else {
            finite[x] += c;
          }
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        const double* t = bv.tables[j]->cost.data() + odo.offsets()[j];
        double* slot = out[b.factor_ids[j]].data() + odo.offsets()[j];
        const std::int64_t xs = bv.x_stride[j];
        for (std::int32_t x = 0; x < dx; ++x) {
          const double c = t[x * xs];
          double rest;
          if (infinite[x] == 0) {
            rest = finite[x] - c;
          } else if (infinite[x] == 1 && c == kInf) {
            rest = finite[x];
          } else {
            continue;
          }
          slot[x * xs] = std::min(slot[x * xs], rest);
        }
      }
    }
  }
  return out;
}

double Elimination::relaxation_bound() const {
  double bound = 0;
  for (std::size_t id = 0; id < factors_.size(); ++id) {
    if (!consumed_[id]) bound += table_min_cost(*factors_[id].table);
  }
  return bound;
}

core::Status Elimination::decode(std::vector<std::int32_t>& assignment,
                                 std::vector<std::int64_t>& targets) const {
  targets.resize(factors_.size(), -1);
  std::vector<double> acc;
  FrontierScratch scratch;
  for (std::size_t i = buckets_.size(); i-- > 0;) {
    const Bucket& b = buckets_[i];
    if (b.factor_ids.empty()) {
      assignment[b.var] = 0;
      continue;
    }
    std::int64_t entry = 0;  // of the message, row-major over the separator
    for (std::int32_t s : b.separator) {
      const std::int32_t label = assignment[s];
      if (label < 0) return core::Error::internal("decode: separator variable without a label");
      entry = entry * domains_[s] + label;
    }
    if (!b.argmin.empty()) {
      assignment[b.var] = b.argmin[static_cast<std::size_t>(entry)];
      continue;
    }
    const View v = view(b);
    const BucketView& bv = v.bucket;
    const Odometer odo(bv, entry);
    if (!bv.frontier) {
      acc.resize(static_cast<std::size_t>(bv.x_dim));
      std::int32_t x = 0;
      scalar_entry(bv, odo.offsets(), acc, &x);
      assignment[b.var] = x;
      continue;
    }
    const std::int64_t target = targets[b.message];
    if (target < 0) return core::Error::internal("decode: frontier message without a target");
    FrontierHistory history;
    std::vector<double> cost;
    std::vector<std::int64_t> mem;
    const std::vector<double>* window = outside_for(static_cast<std::size_t>(b.message));
    const double out = window != nullptr ? (*window)[entry] : std::nan("");
    frontier_entry(bv, memory_, odo.offsets(), out, scratch, cost, mem, &history);
    if (target >= static_cast<std::int64_t>(history.kept.size())) {
      return core::Error::internal("decode: target point out of range");
    }
    const std::int32_t cand = history.kept[static_cast<std::size_t>(target)];
    const std::int32_t x = history.candidates.tag_a[cand];
    std::int32_t at = history.candidates.tag_b[cand];
    assignment[b.var] = x;
    // Unwind the Minkowski steps from the last frontier table back to the first.
    std::vector<std::size_t> frontier_tables;
    for (std::size_t j = 0; j < bv.tables.size(); ++j) {
      if (bv.tables[j]->frontier) frontier_tables.push_back(j);
    }
    const auto& steps = history.steps[static_cast<std::size_t>(x)];
    for (std::size_t s = steps.size(); s-- > 0;) {
      targets[b.factor_ids[frontier_tables[s]]] = steps[s].tag_b[at];
      at = steps[s].tag_a[at];
    }
  }
  return {};
}

RootChoice choose_root(const std::vector<Factor>& factors,
                       const std::vector<std::int32_t>& constants, const MemoryModel& memory,
                       std::vector<std::int64_t>& targets) {
  targets.resize(factors.size(), -1);
  std::vector<const Factor*> fs;
  fs.reserve(constants.size());
  for (std::int32_t id : constants) fs.push_back(&factors[id]);
  // The constants form a bucket of a dummy variable with one label and an empty separator.
  const BucketView bv = make_view(fs, -1, 1, {}, {}, memory.rows());
  const std::vector<std::int64_t> offsets(fs.size(), 0);
  RootChoice root;
  if (!bv.frontier) {
    std::vector<double> acc(1);
    root.cost_us = scalar_entry(bv, offsets, acc, nullptr);
    root.memory_bytes.assign(memory.rows(), 0);
    if (!within_bounds(memory, root.memory_bytes.data())) root.cost_us = kInf;
    return root;
  }
  FrontierScratch scratch;
  FrontierHistory history;
  std::vector<double> cost;
  std::vector<std::int64_t> mem;
  frontier_entry(bv, memory, offsets, 0.0, scratch, cost, mem, &history);
  const std::size_t rows = memory.rows();
  std::int64_t best = -1;
  for (std::size_t k = 0; k < cost.size(); ++k) {
    if (!within_bounds(memory, &mem[k * rows])) continue;
    if (best < 0 || cost[k] < cost[static_cast<std::size_t>(best)])
      best = static_cast<std::int64_t>(k);
  }
  if (best < 0) {
    root.cost_us = kInf;
    return root;
  }
  root.cost_us = cost[static_cast<std::size_t>(best)];
  root.memory_bytes.assign(mem.begin() + best * static_cast<std::int64_t>(rows),
                           mem.begin() + (best + 1) * static_cast<std::int64_t>(rows));
  const std::int32_t cand = history.kept[static_cast<std::size_t>(best)];
  std::int32_t at = history.candidates.tag_b[cand];
  std::vector<std::int32_t> frontier_ids;
  for (std::size_t j = 0; j < bv.tables.size(); ++j) {
    if (bv.tables[j]->frontier) frontier_ids.push_back(constants[j]);
  }
  const auto& steps = history.steps[0];
  for (std::size_t s = steps.size(); s-- > 0;) {
    targets[frontier_ids[s]] = steps[s].tag_b[at];
    at = steps[s].tag_a[at];
  }
  return root;
}

}  // namespace dtplan::solve::detail
