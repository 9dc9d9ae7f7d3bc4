// Leaves, aliases and factories (lib/strategy/ops/leaf.cc).

#include <doctest/doctest.h>

#include <random>

#include "strategy/local_shapes.h"
#include "support/strategy_testing.h"

namespace dtplan::strategy::testing {
namespace {

OpStrategy leaf(graph::Shape shape, std::vector<std::int64_t> mesh, DType d = DType::kBF16) {
  return run_op(OpKind::kPlaceholder, {}, {}, std::move(mesh), {}, {},
                {TensorMeta{std::move(shape), d}});
}

TEST_CASE("leaf: the LLaMA3-8B counts on 8x8 (docs/reference/strategy_selection.md §2.2, §2.12)") {
  const std::vector<std::int64_t> mesh = {8, 8};
  CHECK(leaf({16, 8192, 4096}, mesh).size() == 15);  // S(0),S(0): 16 -> 2 < 8
  CHECK(leaf({16, 8192, 14336}, mesh).size() == 15);
  CHECK(leaf({16, 8192, 128256}, mesh).size() == 15);  // logits
  CHECK(leaf({4096, 4096}, mesh, DType::kF32).size() == 9);
  CHECK(leaf({14336, 4096}, mesh, DType::kF32).size() == 9);
  CHECK(leaf({4096}, mesh, DType::kF32).size() == 4);
  CHECK(leaf({16, 8192}, mesh, DType::kI64).size() == 8);
  CHECK(leaf({16, 32, 8192}, mesh, DType::kF32).size() == 14);   // lse: also S(1),S(1) (32 -> 4)
  CHECK(leaf({16, 8192, 32, 128}, mesh).size() == 23);           // q; S(2),S(2): 32 -> 4
  CHECK(leaf({16, 8192, 8, 128}, mesh).size() == 23);            // k, v; S(2),S(2): 8 -> 1
  CHECK(leaf({16, 32, 8192, 128}, mesh).size() == 23);           // attention layout
  CHECK(leaf({1, 8192, 1, 64}, mesh, DType::kC64).size() == 9);  // freqs view: dims 1 and 3
}

TEST_CASE("leaf: product order [R, S(0), S(1), ...] per mesh dim, mesh dim 0 slowest") {
  OpStrategy op = leaf({4, 6}, {2, 2});
  CHECK(op.rule == Rule::kLeaf);
  CHECK_FALSE(op.is_follower());
  CHECK(formatted(op) == Texts{"R,R <-", "R,S(0) <-", "R,S(1) <-", "S(0),R <-", "S(0),S(0) <-",
                               "S(0),S(1) <-", "S(1),R <-", "S(1),S(0) <-", "S(1),S(1) <-"});
  // Local shapes at coordinate 0 and zero compute cost.
  CHECK(op.strategies[5].local_output_shapes == std::vector<graph::Shape>{{2, 3}});
  CHECK(op.strategies[4].local_output_shapes == std::vector<graph::Shape>{{1, 6}});
  for (const Strategy& s : op.strategies) CHECK(s.compute_us == 0);
}

TEST_CASE("leaf: uneven shards stay, too-small dims go") {
  // [3,5] on (4,): 3 < 4, so only R and S(1) (5 -> 2,2,1,0 is allowed).
  CHECK(formatted(leaf({3, 5}, {4})) == Texts{"R <-", "S(1) <-"});
  // [5] on (2,2): 5 -> 3 -> 2; both splits pass.
  CHECK(leaf({5}, {2, 2}).size() == 4);
  // A 0-d tensor has only R; a size-0 dim cannot be sharded.
  CHECK(leaf({}, {2, 2}).size() == 1);
  CHECK(leaf({0, 4}, {2}).size() == 2);
}

TEST_CASE("leaf: counts match a brute-force walk over random shapes and meshes") {
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = rng() % 4, ndim = 1 + rng() % 3;
    graph::Shape shape;
    for (std::size_t i = 0; i < rank; ++i) shape.push_back(static_cast<std::int64_t>(rng() % 12));
    std::vector<std::int64_t> mesh;
    for (std::size_t k = 0; k < ndim; ++k) mesh.push_back(1 + static_cast<std::int64_t>(rng() % 4));
    CAPTURE(graph::format_shape(shape));
    CAPTURE(graph::format_shape(mesh));
    OpStrategy op = leaf(shape, mesh);
    // Brute force: every combination (digit k = the pick of mesh dim k), validity by the
    // definition.
    std::size_t expected = 0;
    std::vector<std::size_t> pick(ndim, 0);
    for (bool more = true; more;) {
      graph::Shape sizes = shape;
      bool ok = true;
      for (std::size_t k = 0; k < ndim; ++k) {
        if (pick[k] == 0) continue;
        std::int64_t& s = sizes[pick[k] - 1];
        ok = ok && s >= mesh[k];
        s = (s + mesh[k] - 1) / mesh[k];
      }
      expected += ok ? 1 : 0;
      more = false;
      for (std::size_t k = ndim; k-- > 0 && !more;) {
        more = ++pick[k] <= rank;
        if (!more) pick[k] = 0;
      }
    }
    CHECK(op.size() == expected);
    REQUIRE(op.size() >= 1);
    CHECK(op.strategies[0].outputs[0] == all_replicate(ndim));
    for (const Strategy& s : op.strategies) {
      for (const placement::Placement& p : s.outputs[0]) CHECK_FALSE(p.is_partial());
    }
  }
}

TEST_CASE("alias: every R/S option, reading its input in the placement it outputs") {
  OpStrategy op = run_op(OpKind::kAlias, {TensorMeta{{16, 8192, 4096}, DType::kBF16}}, {}, {8, 8});
  CHECK(op.rule == Rule::kAlias);
  CHECK(op.size() == 15);
  CHECK_FALSE(op.is_follower());
  for (const Strategy& s : op.strategies) {
    CHECK(s.inputs.size() == 1);
    CHECK(s.inputs[0] == s.outputs[0]);
    CHECK(s.compute_us == 0);
  }
  // The same options whatever the producer offers (Partial producers must reduce into it).
  OpStrategy with_partial = run_op(OpKind::kAlias, {TensorMeta{{16, 8192, 4096}, DType::kBF16}}, {},
                                   {8, 8}, {pls({"P(sum),P(sum)"})});
  CHECK(with_partial == op);
}

TEST_CASE("factory: any R/Shard output at the cost of writing it; arange: Replicate only") {
  OpStrategy zeros =
      run_op(OpKind::kZeros, {}, {{"size", std::vector<std::int64_t>{4, 6}}}, {2, 2});
  CHECK(zeros.rule == Rule::kFactory);
  CHECK(zeros.size() == 9);
  CHECK(zeros.strategies[0].compute_us == 7.0);  // 96 bytes: the launch floor
  OpStrategy big =
      run_op(OpKind::kZeros, {}, {{"size", std::vector<std::int64_t>{1 << 14, 1 << 14}}}, {8});
  // S(0): a [2048, 16384] f32 slice written: 2^27 bytes / (3.35e12 x 0.7).
  CHECK(big.strategies[1].compute_us == doctest::Approx(134217728 / (3.35e12 * 0.7) * 1e6));
  OpStrategy arange = run_op(OpKind::kArange, {}, {{"end", std::int64_t{64}}}, {2, 2});
  CHECK(formatted(arange) == Texts{"R,R <-"});
}

}  // namespace
}  // namespace dtplan::strategy::testing
