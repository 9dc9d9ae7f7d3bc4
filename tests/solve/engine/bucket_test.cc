// One bucket's scalar arithmetic: scalar_message (whole runs of the run digit, with the kernels
// for one contiguous table, one x-contiguous table and several tables; values and argmins)
// against scalar_entry, the per-entry reference, bit for bit, and against the definition by brute
// force.

#include "solve/engine/bucket.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

namespace dtplan::solve::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct RandomBucket {
  std::vector<Factor> factors;
  std::vector<std::int32_t> domains;  // per variable; variable 0 is eliminated
};

// Variables 0..vars-1 with random domains; each factor reads x (variable 0) and a random subset
// of the others, in a random scope order, with some +inf entries.
RandomBucket random_bucket(std::mt19937& rng, int vars, int factors) {
  RandomBucket b;
  for (int v = 0; v < vars; ++v) {
    b.domains.push_back(std::uniform_int_distribution<int>(1, 7)(rng));
  }
  std::uniform_real_distribution<double> cost(0, 100);
  for (int f = 0; f < factors; ++f) {
    std::vector<std::int32_t> scope = {0};
    for (int v = 1; v < vars; ++v) {
      if (rng() % 2 == 0) scope.push_back(v);
    }
    std::shuffle(scope.begin(), scope.end(), rng);
    auto t = std::make_shared<Table>();
    for (std::int32_t v : scope) {
      t->dims.push_back(b.domains[v]);
      t->entries *= b.domains[v];
    }
    for (std::int64_t e = 0; e < t->entries; ++e) {
      t->cost.push_back(rng() % 13 == 0 ? kInf : std::round(cost(rng) * 1000) / 1000 + 0.1);
    }
    b.factors.push_back({std::move(t), std::move(scope)});
  }
  return b;
}

// The value of f at a full assignment (labels per variable).
double at(const Factor& f, const std::vector<std::int32_t>& labels) {
  std::int64_t entry = 0;
  for (std::size_t i = 0; i < f.scope.size(); ++i) {
    entry = entry * f.table->dims[i] + labels[static_cast<std::size_t>(f.scope[i])];
  }
  return f.table->cost[static_cast<std::size_t>(entry)];
}

TEST_CASE("scalar_message equals scalar_entry bit for bit and the brute-force minimum") {
  std::mt19937 rng(20261122);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int vars = 1 + static_cast<int>(rng() % 5);
    const RandomBucket b = random_bucket(rng, vars, 1 + static_cast<int>(rng() % 4));
    std::vector<const Factor*> fs;
    for (const Factor& f : b.factors) fs.push_back(&f);
    std::vector<std::int32_t> separator, sep_dims;
    for (const Factor& f : b.factors) {
      for (std::int32_t v : f.scope) {
        if (v != 0) separator.push_back(v);
      }
    }
    std::sort(separator.begin(), separator.end());
    separator.erase(std::unique(separator.begin(), separator.end()), separator.end());
    for (std::int32_t v : separator) sep_dims.push_back(b.domains[v]);
    const BucketView view = make_view(fs, 0, b.domains[0], separator, sep_dims, 0);
    REQUIRE(view.sum_order.size() == fs.size());
    std::vector<double> message(static_cast<std::size_t>(view.entries), -1);
    std::vector<std::uint16_t> argmin(static_cast<std::size_t>(view.entries), 999);
    const std::int64_t runs = scalar_runs(view);
    REQUIRE(runs * (view.run_digit < 0 ? 1 : view.sep_dims[view.run_digit]) == view.entries);
    // In two pieces with argmins, as two threads would; once more whole without (same values).
    std::vector<double> again(message.size(), -1);
    REQUIRE(scalar_message(view, 0, runs / 2, message.data(), argmin.data(), [] { return false; }));
    REQUIRE(
        scalar_message(view, runs / 2, runs, message.data(), argmin.data(), [] { return false; }));
    REQUIRE(scalar_message(view, 0, runs, again.data(), nullptr, [] { return false; }));
    CHECK(std::memcmp(again.data(), message.data(), message.size() * sizeof(double)) == 0);
    Odometer odo(view, 0);
    std::vector<double> acc(static_cast<std::size_t>(view.x_dim));
    for (std::int64_t k = 0; k < view.entries; ++k, odo.next()) {
      std::int32_t arg = -1;
      const double entry = scalar_entry(view, odo.offsets(), acc, &arg);
      CHECK(std::memcmp(&entry, &message[static_cast<std::size_t>(k)], sizeof(double)) == 0);
      CHECK(argmin[static_cast<std::size_t>(k)] == arg);
      // Brute force: labels of the separator from k, then min over x (lowest x on ties).
      std::vector<std::int32_t> labels(static_cast<std::size_t>(vars), 0);
      std::int64_t rest = k;
      for (std::size_t i = separator.size(); i-- > 0;) {
        labels[static_cast<std::size_t>(separator[i])] =
            static_cast<std::int32_t>(rest % sep_dims[i]);
        rest /= sep_dims[i];
      }
      double best = kInf;
      std::int32_t best_x = 0;
      for (std::int32_t x = 0; x < b.domains[0]; ++x) {
        labels[0] = x;
        double sum = 0;
        for (const std::int32_t j : view.sum_order)
          sum += at(*fs[static_cast<std::size_t>(j)], labels);
        if (sum < best) {
          best = sum;
          best_x = x;
        }
      }
      CHECK(entry == best);
      CHECK(arg == best_x);
      ++checked;
    }
  }
  CHECK(checked > 3000);
}

TEST_CASE("scalar_message: the run digit is the one fewest tables read, and a late stop stops") {
  // x = var 0 (3 labels); f(0, 1, 2) reads both separator digits, g(0, 1) only digit 0 (var 1):
  // digit 1 (var 2) is read by one table, digit 0 by two, so the run digit is 1.
  auto f = std::make_shared<Table>();
  f->dims = {3, 2, 4};
  f->entries = 24;
  for (int e = 0; e < 24; ++e) f->cost.push_back((e * 7) % 11);
  auto g = std::make_shared<Table>();
  g->dims = {3, 2};
  g->entries = 6;
  g->cost = {5, 1, 0, 2, 3, 3};
  const Factor ff{f, {0, 1, 2}}, gg{g, {0, 1}};
  const BucketView view = make_view({&ff, &gg}, 0, 3, {1, 2}, {2, 4}, 0);
  CHECK(view.run_digit == 1);
  CHECK(view.outer_tables == 1);
  CHECK(view.sum_order == std::vector<std::int32_t>{1, 0});  // g (outer) then f
  CHECK(scalar_runs(view) == 2);
  std::vector<double> out(8, -1);
  CHECK_FALSE(scalar_message(view, 0, 2, out.data(), nullptr, [] { return true; }));
}

}  // namespace
}  // namespace dtplan::solve::detail
