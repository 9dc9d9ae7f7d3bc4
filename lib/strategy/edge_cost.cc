#include "strategy/edge_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "core/hash.h"
#include "core/parallel.h"
#include "solve/problem.h"

namespace dtplan::strategy {

namespace {

// DTensor's unsupported transitions, decided without planning: only Replicate may become a
// Partial it was not already, and Partial kinds must agree (docs/reference/placements.md §2 rows
// 8-9).
bool cannot_redistribute(const Placements& src, const Placements& dst) {
  for (std::size_t d = 0; d < src.size() && d < dst.size(); ++d) {
    if (!dst[d].is_partial() || src[d] == dst[d]) continue;
    if (!src[d].is_replicate()) return true;
  }
  return false;
}

// The cost of src -> dst where it needs no planned redistribution: 0 when equal, +inf where
// DTensor cannot; nullopt where it needs a plan.
std::optional<double> unplanned_cost(const Placements& src, const Placements& dst) {
  if (src == dst) return 0.0;
  if (cannot_redistribute(src, dst)) return solve::kForbidden;
  return std::nullopt;
}

// Pairs fewer than this per thread are priced on one (a thread costs more than a few plans).
constexpr std::int64_t kMinPairsPerThread = 64;

// The distinct placements of a list: `first` holds each one's first index, in order, and `of`
// each entry's position in `first`. A matrix's entries depend on the placements of its row and
// column only, and strategies often share them (LLaMA3-70B on 8x8x16: ~16k entries per matrix).
struct Distinct {
  std::vector<std::size_t> first;
  std::vector<std::size_t> of;
};

Distinct distinct(std::span<const Placements> list) {
  Distinct d;
  d.of.reserve(list.size());
  // Placements by hash, each to its class in `first` (a lookup per entry: lists on a 4-D mesh
  // hold thousands of strategies).
  std::unordered_map<std::size_t, std::vector<std::size_t>> classes;
  classes.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto& same = classes[hash_placements(0, list[i])];
    const auto it = std::find_if(same.begin(), same.end(),
                                 [&](std::size_t k) { return list[d.first[k]] == list[i]; });
    if (it != same.end()) {
      d.of.push_back(*it);
      continue;
    }
    same.push_back(d.first.size());
    d.of.push_back(d.first.size());
    d.first.push_back(i);
  }
  return d;
}

}  // namespace

std::vector<double> column_minima(const std::vector<double>& matrix, std::size_t columns) {
  std::vector<double> out(columns, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    out[i % columns] = std::min(out[i % columns], matrix[i]);
  }
  return out;
}

bool is_forbidden_pair(const core::Error& error) {
  return error.kind == core::ErrorKind::kUnsupported;
}

SeededBounds seeded_minima(const std::vector<double>& matrix, std::span<const double> seeds,
                           std::size_t columns) {
  SeededBounds out{std::vector<double>(columns, std::numeric_limits<double>::infinity()),
                   std::vector<std::int32_t>(columns, -1)};
  for (std::size_t j = 0; j < seeds.size(); ++j) {
    for (std::size_t o = 0; o < columns; ++o) {
      const double x = seeds[j] + matrix[j * columns + o];
      if (x < out.value[o]) {
        out.value[o] = x;
        out.from[o] = static_cast<std::int32_t>(j);
      }
    }
  }
  return out;
}

std::size_t EdgeCoster::SeededKeyHash::operator()(const SeededKey& k) const {
  std::size_t h = KeyHash{}(k.key);
  for (double x : k.seeds) h = core::hash_combine(h, std::hash<double>{}(x));
  return h;
}

std::size_t EdgeCoster::KeyHash::operator()(const EdgeMatrixKey& k) const {
  std::size_t h = core::hash_combine(0, static_cast<std::uint32_t>(k.producer));
  h = core::hash_combine(h, static_cast<std::uint32_t>(k.output));
  h = core::hash_combine(h, static_cast<std::uint32_t>(k.consumer));
  h = core::hash_combine(h, static_cast<std::uint32_t>(k.slot));
  h = core::hash_combine(h, static_cast<std::uint32_t>(k.producer_labels));
  return core::hash_combine(h, static_cast<std::uint32_t>(k.consumer_labels));
}

std::int32_t EdgeCoster::label_set_id(const std::vector<std::int32_t>& strategies) {
  const auto next = static_cast<std::int32_t>(label_sets_.size());
  return label_sets_.emplace(strategies, next).first->second;
}

EdgeCoster::EdgeCoster(std::unique_ptr<redist::Planner> planner,
                       std::vector<std::unique_ptr<redist::Planner>> helpers)
    : planner_(std::move(planner)), helpers_(std::move(helpers)) {
  const auto sizes = planner_->mesh().sizes();
  sizes_.assign(sizes.begin(), sizes.end());
  options_.planner = redist::PlannerKind::kAuto;
  options_.merge = true;
}

core::Result<placement::TensorSpec> EdgeCoster::spec(const graph::TensorMeta& meta,
                                                     const Placements& placements) const {
  return placement::TensorSpec::make(meta.shape, meta.dtype, placements, sizes_);
}

std::int32_t EdgeCoster::intern(placement::TensorSpec spec) {
  const auto next = static_cast<std::int32_t>(specs_.size());
  const auto [it, added] = spec_ids_.emplace(spec, next);
  if (added) specs_.push_back(std::move(spec));
  return it->second;
}

namespace {

std::uint64_t pair_key(std::int32_t src, std::int32_t dst) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
         static_cast<std::uint32_t>(dst);
}

// A planned cost, with +inf where DTensor cannot; other errors propagate. The planner prices
// uncached: only the cost is kept by the coster; the few plans lowering needs are planned again
// through plan(), which caches them.
core::Result<double> forbidden_or(core::Result<double> planned) {
  if (planned.ok()) return *planned;
  if (is_forbidden_pair(planned.error())) return solve::kForbidden;
  return std::move(planned).error();
}

}  // namespace

core::Result<double> EdgeCoster::pair_cost(std::int32_t src, std::int32_t dst) {
  const std::uint64_t key = pair_key(src, dst);
  if (auto it = costs_.find(key); it != costs_.end()) return it->second;
  DTPLAN_TRY(double cost, forbidden_or(planner_->cost_uncached(
                              specs_[static_cast<std::size_t>(src)],
                              specs_[static_cast<std::size_t>(dst)], options_)));
  costs_.emplace(key, cost);
  return cost;
}

std::vector<core::Result<double>> EdgeCoster::price_in_parallel(
    const std::vector<std::uint64_t>& keys) {
  // The rows: runs of keys with one source spec (matrix() lists them row by row), each priced by
  // one costs_uncached call, which shares the min-cost searches of a row.
  std::vector<std::size_t> row_begin;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || keys[i] >> 32 != keys[i - 1] >> 32) row_begin.push_back(i);
  }
  row_begin.push_back(keys.size());
  const auto rows = static_cast<std::int64_t>(row_begin.size() - 1);
  std::vector<core::Result<double>> got(keys.size(), 0.0);
  // Chunk c prices rows c, c + chunks, ...: neighbouring rows cost alike, so interleaving
  // balances the threads where contiguous ranges would not.
  const int threads = static_cast<int>(helpers_.size()) + 1;
  const int chunks =
      std::max(1, std::min(static_cast<int>(std::min<std::int64_t>(rows, threads)),
                           core::chunk_count(threads, static_cast<std::int64_t>(keys.size()),
                                             kMinPairsPerThread)));
  auto price = [&](int chunk, std::int64_t, std::int64_t) {
    redist::Planner& planner =
        chunk == 0 ? *planner_ : *helpers_[static_cast<std::size_t>(chunk - 1)];
    std::vector<const placement::TensorSpec*> dsts;
    for (auto r = static_cast<std::size_t>(chunk); r + 1 < row_begin.size(); r += chunks) {
      dsts.clear();
      for (std::size_t i = row_begin[r]; i < row_begin[r + 1]; ++i) {
        dsts.push_back(&specs_[keys[i] & 0xffffffffU]);
      }
      auto costs = planner.costs_uncached(specs_[keys[row_begin[r]] >> 32], dsts, options_);
      for (std::size_t k = 0; k < costs.size(); ++k) {
        got[row_begin[r] + k] = forbidden_or(std::move(costs[k]));
      }
    }
  };
  core::parallel_chunks(chunks, chunks, 1, price);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (got[i].ok()) costs_.emplace(keys[i], *got[i]);
  }
  return got;
}

core::Result<std::int32_t> EdgeCoster::spec_id(const graph::TensorMeta& meta,
                                               const Placements& placements) {
  DTPLAN_TRY(placement::TensorSpec s, spec(meta, placements));
  return intern(std::move(s));
}

core::Result<double> EdgeCoster::cost_between(const Placements& src, const Placements& dst,
                                              const core::Result<std::int32_t>& from,
                                              const core::Result<std::int32_t>& to) {
  if (const auto free = unplanned_cost(src, dst)) return *free;
  if (!from.ok()) return from.error();
  if (!to.ok()) return to.error();
  return pair_cost(*from, *to);
}

core::Result<double> EdgeCoster::cost_us(const graph::TensorMeta& meta, const Placements& src,
                                         const Placements& dst) {
  const auto from = spec_id(meta, src);
  return cost_between(src, dst, from, spec_id(meta, dst));
}

core::Result<std::shared_ptr<const redist::RedistPlan>> EdgeCoster::plan(
    const graph::TensorMeta& meta, const Placements& src, const Placements& dst) {
  DTPLAN_TRY(placement::TensorSpec from, spec(meta, src));
  DTPLAN_TRY(placement::TensorSpec to, spec(meta, dst));
  return planner_->plan(from, to, options_);
}

core::Result<EdgeMatrix> EdgeCoster::matrix(const EdgeMatrixKey& key, const graph::TensorMeta& meta,
                                            std::span<const Placements> producer_options,
                                            std::span<const Placements> consumer_inputs) {
  if (auto it = matrices_.find(key); it != matrices_.end()) return it->second;
  // Priced once per pair of distinct placements, then spread over the rows and columns that
  // share them; each distinct row's and column's spec once; a spec that cannot be built fails
  // only where cost_us would (a pair with different placements that DTensor can redistribute).
  // The first failing pair is the same as in row-major order over the whole matrix.
  const Distinct dr = distinct(producer_options);
  const Distinct dc = distinct(consumer_inputs);
  auto ids = [&](std::span<const Placements> list, const Distinct& d) {
    std::vector<core::Result<std::int32_t>> out;
    out.reserve(d.first.size());
    for (std::size_t i : d.first) out.push_back(spec_id(meta, list[i]));
    return out;
  };
  const auto rows = ids(producer_options, dr);
  const auto cols = ids(consumer_inputs, dc);
  // The distinct pairs' costs, row-major: memoised ones read once, the others priced at once.
  const std::size_t nc = dc.first.size();
  std::vector<double> small(dr.first.size() * nc);
  std::vector<std::uint64_t> todo;  // the pairs to plan, in row-major order: each once
  std::vector<std::size_t> at;      // ... and where their costs go
  bool failed = false;              // a spec or a plan failed: found again below, in order
  for (std::size_t j = 0; j < dr.first.size(); ++j) {
    for (std::size_t o = 0; o < nc; ++o) {
      double& cost = small[j * nc + o];
      if (const auto free =
              unplanned_cost(producer_options[dr.first[j]], consumer_inputs[dc.first[o]])) {
        cost = *free;
        continue;
      }
      if (!rows[j].ok() || !cols[o].ok()) {
        failed = true;
        continue;
      }
      const std::uint64_t pair = pair_key(*rows[j], *cols[o]);
      if (const auto it = costs_.find(pair); it != costs_.end()) {
        cost = it->second;
      } else {
        todo.push_back(pair);
        at.push_back(j * nc + o);
      }
    }
  }
  const auto priced = price_in_parallel(todo);
  for (std::size_t k = 0; k < priced.size(); ++k) {
    if (priced[k].ok()) {
      small[at[k]] = *priced[k];
    } else {
      failed = true;
    }
  }
  if (failed) {
    // The first failing pair in row-major order gives the error (cost_us's for that pair).
    for (std::size_t j = 0; j < dr.first.size(); ++j) {
      for (std::size_t o = 0; o < nc; ++o) {
        DTPLAN_CHECK(cost_between(producer_options[dr.first[j]], consumer_inputs[dc.first[o]],
                                  rows[j], cols[o]));
      }
    }
    return core::Error::internal("edge costs: a pair failed to price, then priced");
  }
  auto m = std::make_shared<std::vector<double>>();
  m->reserve(producer_options.size() * consumer_inputs.size());
  for (std::size_t j = 0; j < producer_options.size(); ++j) {
    const double* row = small.data() + dr.of[j] * nc;
    for (std::size_t o = 0; o < consumer_inputs.size(); ++o) m->push_back(row[dc.of[o]]);
  }
  EdgeMatrix shared = std::move(m);
  matrices_.emplace(key, shared);
  return shared;
}

core::Result<EdgeMatrix> EdgeCoster::cheapest(const EdgeMatrixKey& key,
                                              const graph::TensorMeta& meta,
                                              std::span<const Placements> producer_options,
                                              std::span<const Placements> consumer_inputs) {
  if (auto it = cheapest_.find(key); it != cheapest_.end()) return it->second;
  const Distinct dr = distinct(producer_options);
  const Distinct dc = distinct(consumer_inputs);
  // Specs of the distinct options and inputs (an input equal to an option is a source of the
  // search, so it settles at 0).
  std::vector<placement::TensorSpec> specs;
  for (const auto& [list, d] : {std::pair{producer_options, &dr}, {consumer_inputs, &dc}}) {
    for (std::size_t i : d->first) {
      DTPLAN_TRY(placement::TensorSpec s, spec(meta, list[i]));
      specs.push_back(std::move(s));
    }
  }
  std::vector<const placement::TensorSpec*> ends;
  for (const auto& s : specs) ends.push_back(&s);
  const std::span<const placement::TensorSpec* const> all(ends);
  auto bounds = planner_->cost_lower_bounds(all.first(dr.first.size()),
                                            all.subspan(dr.first.size()), options_);
  if (!bounds.ok()) {  // beyond the search's limits: the exact column minima
    DTPLAN_TRY(EdgeMatrix m, matrix(key, meta, producer_options, consumer_inputs));
    return cheapest_
        .emplace(key, std::make_shared<const std::vector<double>>(
                          column_minima(*m, consumer_inputs.size())))
        .first->second;
  }
  auto out = std::make_shared<std::vector<double>>();
  out->reserve(consumer_inputs.size());
  for (std::size_t o = 0; o < consumer_inputs.size(); ++o) out->push_back((*bounds)[dc.of[o]]);
  return cheapest_.emplace(key, std::move(out)).first->second;
}

core::Result<std::shared_ptr<const SeededBounds>> EdgeCoster::seeded_cheapest(
    const EdgeMatrixKey& key, const graph::TensorMeta& meta,
    std::span<const Placements> producer_options, std::span<const double> seeds,
    std::span<const Placements> consumer_inputs) {
  SeededKey memo{key, std::vector<double>(seeds.begin(), seeds.end())};
  if (auto it = seeded_.find(memo); it != seeded_.end()) return it->second;
  const Distinct dr = distinct(producer_options);
  const Distinct dc = distinct(consumer_inputs);
  // Per distinct option, its smallest seed (the first option on ties).
  std::vector<double> best(dr.first.size(), std::numeric_limits<double>::infinity());
  std::vector<std::size_t> best_option(dr.first);
  for (std::size_t j = 0; j < producer_options.size(); ++j) {
    if (seeds[j] < best[dr.of[j]]) {
      best[dr.of[j]] = seeds[j];
      best_option[dr.of[j]] = j;
    }
  }
  // The sources: the distinct options with a finite seed.
  std::vector<std::size_t> source_option;
  std::vector<double> source_seed;
  std::vector<placement::TensorSpec> specs;
  for (std::size_t k = 0; k < dr.first.size(); ++k) {
    if (!std::isfinite(best[k])) continue;
    DTPLAN_TRY(placement::TensorSpec sp, spec(meta, producer_options[best_option[k]]));
    specs.push_back(std::move(sp));
    source_option.push_back(best_option[k]);
    source_seed.push_back(best[k]);
  }
  const std::size_t sources = specs.size();
  for (std::size_t i : dc.first) {
    DTPLAN_TRY(placement::TensorSpec sp, spec(meta, consumer_inputs[i]));
    specs.push_back(std::move(sp));
  }
  std::vector<const placement::TensorSpec*> ends;
  for (const auto& sp : specs) ends.push_back(&sp);
  const std::span<const placement::TensorSpec* const> all(ends);
  std::vector<std::int32_t> origins;
  auto bounds = sources == 0 ? core::Result<std::vector<double>>(std::vector<double>())
                             : planner_->cost_lower_bounds(all.first(sources), all.subspan(sources),
                                                           options_, source_seed, &origins);
  auto out = std::make_shared<SeededBounds>();
  if (!bounds.ok()) {  // beyond the search's limits: the exact matrix
    DTPLAN_TRY(EdgeMatrix m, matrix(key, meta, producer_options, consumer_inputs));
    *out = seeded_minima(*m, seeds, consumer_inputs.size());
  } else {
    for (std::size_t o = 0; o < consumer_inputs.size(); ++o) {
      const std::int32_t from = sources == 0 ? -1 : origins[dc.of[o]];
      out->from.push_back(
          from < 0 ? -1 : static_cast<std::int32_t>(source_option[static_cast<std::size_t>(from)]));
      out->value.push_back(from < 0 ? std::numeric_limits<double>::infinity()
                                    : (*bounds)[dc.of[o]]);
    }
  }
  return seeded_.emplace(std::move(memo), std::move(out)).first->second;
}

}  // namespace dtplan::strategy
