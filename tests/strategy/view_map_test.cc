#include "strategy/view_map.h"

#include <doctest/doctest.h>

#include <random>
#include <set>

#include "placement/owned_indices.h"
#include "placement/tensor_spec.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy {
namespace {

using testing::pl;

std::vector<ViewGroup> groups(const graph::Shape& from, const graph::Shape& to) {
  auto g = view_groups(from, to);
  REQUIRE_MESSAGE(g.ok(), (g.ok() ? "" : g.error().message));
  return std::move(g).value();
}

ViewPlacements view(const graph::Shape& from, const graph::Shape& to, const std::string& src,
                    const std::vector<std::int64_t>& mesh) {
  return propagate_view(from, to, groups(from, to), pl(src), mesh);
}

// The row-major flat indices each rank owns, rank by rank (coordinates in row-major order).
std::vector<std::set<std::int64_t>> owned_flat(const graph::Shape& shape, const Placements& p,
                                               const std::vector<std::int64_t>& mesh) {
  auto spec = placement::TensorSpec::make(shape, core::DType::kF32, p, mesh);
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? "" : spec.error().message));
  std::vector<std::set<std::int64_t>> out;
  std::vector<std::int64_t> coord(mesh.size(), 0);
  while (true) {
    auto sets = placement::owned_indices(*spec, mesh, coord);
    REQUIRE(sets.ok());
    std::set<std::int64_t> flat = {0};
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::set<std::int64_t> next;
      for (std::int64_t base : flat) {
        for (std::int64_t i : (*sets)[d].to_vector()) next.insert(base * shape[d] + i);
      }
      flat = std::move(next);
    }
    if (shape.empty()) flat = {0};
    out.push_back(std::move(flat));
    std::size_t k = mesh.size();
    while (k-- > 0 && ++coord[k] == mesh[k]) coord[k] = 0;
    if (k == static_cast<std::size_t>(-1)) break;
  }
  return out;
}

TEST_CASE("view_groups: PyTorch's grouping, singletons on their own") {
  CHECK(groups({16, 8192, 4096}, {16, 8192, 32, 128}) ==
        std::vector<ViewGroup>{{0, 1, 0, 1}, {1, 2, 1, 2}, {2, 3, 2, 4}});
  CHECK(groups({8192, 64}, {1, 8192, 1, 64}) ==
        std::vector<ViewGroup>{{0, 0, 0, 1}, {0, 1, 1, 2}, {1, 1, 2, 3}, {1, 2, 3, 4}});
  CHECK(groups({4, 6}, {24}) == std::vector<ViewGroup>{{0, 2, 0, 1}});
  CHECK(groups({6, 4}, {4, 6}) == std::vector<ViewGroup>{{0, 2, 0, 2}});
  CHECK(groups({2, 1, 3}, {6}) == std::vector<ViewGroup>{{0, 3, 0, 1}});
  CHECK(groups({0, 4}, {2, 0}) == std::vector<ViewGroup>{{0, 2, 0, 2}});
  CHECK(groups({}, {1, 1}) == std::vector<ViewGroup>{{0, 0, 0, 1}, {0, 0, 1, 2}});
  auto bad = view_groups({4, 6}, {5, 5});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == core::ErrorKind::kBadInput);
  CHECK_FALSE(view_groups({0, 4}, {4}).ok());
}

TEST_CASE("propagate_view: the worked examples of docs/reference/device_mesh.md §4.3") {
  // 1. Both shards on the first flattened dim: no strided shard.
  CHECK(view({8, 4}, {32}, "S(0),S(0)", {2, 2}).output == pl("S(0),S(0)"));
  // 2. A shard on a later dim becomes strided, sf = local[0] = 4/2.
  CHECK(view({4, 6}, {24}, "S(0),S(1)", {2, 3}).output == pl("S(0),_S(0,2)"));
  // 3. Reversed mesh order: sf = local[0] = 4, undivided.
  CHECK(view({4, 6}, {24}, "S(1),S(0)", {3, 2}).output == pl("_S(0,4),S(0)"));
  // 4. Both shards on dim 1.
  CHECK(view({4, 4}, {16}, "S(1),S(1)", {2, 2}).output == pl("_S(0,4),_S(0,4)"));
  // 5. Round trip through [6,4].
  CHECK(view({2, 3, 4}, {6, 4}, "S(1)", {3}).output == pl("_S(0,2)"));
  CHECK(view({6, 4}, {2, 3, 4}, "_S(0,2)", {3}).output == pl("S(1)"));
  // And example 3 unflattened back.
  CHECK(view({24}, {4, 6}, "_S(0,4),S(0)", {3, 2}).output == pl("S(1),S(0)"));
}

TEST_CASE("propagate_view: LLaMA3's views; what cannot be carried is replicated first") {
  const std::vector<std::int64_t> mesh = {8, 8};
  // q view: the hidden dim splits into heads.
  CHECK(view({16, 8192, 4096}, {16, 8192, 32, 128}, "S(0),S(2)", mesh).output == pl("S(0),S(2)"));
  // 32 heads cannot take 64 ways: tp is replicated before the view (the option then merges
  // with R,S(2) and the view has 23 strategies).
  ViewPlacements q = view({16, 8192, 4096}, {16, 8192, 32, 128}, "S(2),S(2)", mesh);
  CHECK(q.input == pl("S(2),R"));
  CHECK(q.output == pl("S(2),R"));
  // k's 8 heads: DTensor's rule sends a group-starting shard to the first split dim only.
  CHECK(view({16, 8192, 1024}, {16, 8192, 8, 128}, "S(2),S(2)", mesh).output == pl("S(2),R"));
  // The backward flatten of heads x head_dim with both sharded: a strided hidden dim.
  CHECK(view({16, 8192, 32, 128}, {16, 8192, 4096}, "S(2),S(3)", mesh).output ==
        pl("S(2),_S(2,4)"));
  // Partial and Replicate pass; the freqs view moves dims 0, 1 to 1, 3.
  CHECK(view({16, 8192, 4096}, {16, 8192, 32, 128}, "P(sum),R", mesh).output == pl("P(sum),R"));
  CHECK(view({8192, 64}, {1, 8192, 1, 64}, "S(0),S(1)", mesh).output == pl("S(1),S(3)"));
  // An uneven shard followed by more dims in its group cannot be flattened (DTensor would
  // accept it with local shapes that disagree with torch.chunk).
  CHECK(view({5, 4}, {20}, "S(0)", {2}).input == pl("R"));
  // With nothing after it, it can.
  CHECK(view({4, 5}, {20}, "S(1)", {2}).output == pl("_S(0,4)"));
}

TEST_CASE("propagate_view: every rank owns the same elements before and after (random)") {
  std::mt19937_64 rng(31337);
  auto random_shape = [&](std::int64_t numel) {
    // Split numel into 1-4 factors at random divisors.
    graph::Shape s;
    std::int64_t rest = numel;
    const std::size_t rank = 1 + rng() % 4;
    for (std::size_t i = 0; i + 1 < rank; ++i) {
      std::vector<std::int64_t> divisors;
      for (std::int64_t d = 1; d <= rest; ++d) {
        if (rest % d == 0) divisors.push_back(d);
      }
      const std::int64_t d = divisors[rng() % divisors.size()];
      s.push_back(d);
      rest /= d;
    }
    s.push_back(rest);
    return s;
  };
  const std::int64_t numels[] = {12, 16, 24, 36, 48, 60, 64, 30, 20};
  int carried = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t n = numels[rng() % std::size(numels)];
    std::vector<graph::Shape> chain = {random_shape(n), random_shape(n), random_shape(n)};
    std::vector<std::int64_t> mesh;
    for (std::size_t k = 0, nd = 1 + rng() % 2; k < nd; ++k) {
      mesh.push_back(2 + static_cast<std::int64_t>(rng() % 2));
    }
    // A random R/S option of the first shape, then two views in a row.
    Placements src(mesh.size());
    for (auto& p : src) {
      const std::size_t pick = rng() % (chain[0].size() + 1);
      p = pick == 0 ? placement::Placement::replicate()
                    : placement::Placement::shard(static_cast<std::int32_t>(pick - 1));
    }
    for (std::size_t step = 0; step + 1 < chain.size(); ++step) {
      const graph::Shape &from = chain[step], &to = chain[step + 1];
      CAPTURE(graph::format_shape(from));
      CAPTURE(graph::format_shape(to));
      CAPTURE(placement::format_placements(src));
      CAPTURE(graph::format_shape(mesh));
      ViewPlacements vp = propagate_view(from, to, groups(from, to), src, mesh);
      // Only shards are dropped, and only to R.
      for (std::size_t k = 0; k < src.size(); ++k) {
        CHECK((vp.input[k] == src[k] || vp.input[k].is_replicate()));
        CHECK(vp.input[k].is_replicate() == vp.output[k].is_replicate());
        carried += src[k].is_shard_like() && !vp.input[k].is_replicate() ? 1 : 0;
      }
      CHECK(owned_flat(from, vp.input, mesh) == owned_flat(to, vp.output, mesh));
      src = vp.output;
    }
  }
  CHECK(carried > 300);  // the property is not vacuous
}

}  // namespace
}  // namespace dtplan::strategy
