// DTensor's cost model (docs/reference/placements.md §5): MeshTopoInfo's host split, the formulas
// and the worked numbers of docs/reference/placements.md §5.6, and the honest prices of the steps
// PyTorch prices at 0.

#include "redist/dtensor_model.h"

#include <doctest/doctest.h>

#include "redist/step_pricer.h"
#include "support/profiles.h"
#include "support/redist_support.h"

namespace dtplan::redist {
namespace {

using testing::mesh_context;
using testing::state_of;
using testing::steps_of;

double price_of(const MeshContext& ctx, const std::vector<std::int64_t>& shape,
                const std::string& state, const std::string& step) {
  DTensorModel model(testing::profile("h100-dgx"));
  auto q = make_query(ctx, shape, core::DType::kF32, state_of(state), steps_of(step)[0]);
  REQUIRE_MESSAGE(q.ok(), (q.ok() ? std::string() : q.error().message));
  auto p = model.price(ctx, *q);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? std::string() : p.error().message));
  return p->cost_us;
}

TEST_CASE("MeshTopoInfo: the first dim past one host, and every outer one, is inter-host") {
  auto inter = [](std::vector<std::int64_t> shape, std::int64_t per_host) {
    MeshContext ctx = mesh_context(shape, {}, {}, per_host);
    std::vector<bool> out;
    for (int d = 0; d < ctx.ndim(); ++d) out.push_back(ctx.dim_groups(d).inter_host);
    return out;
  };
  CHECK(inter({2, 2, 2}, 8) == std::vector<bool>{false, false, false});
  CHECK(inter({2, 2, 2}, 4) == std::vector<bool>{true, false, false});
  CHECK(inter({2, 4}, 4) == std::vector<bool>{true, false});
  CHECK(inter({4, 8}, 8) == std::vector<bool>{true, false});
  CHECK(kDTensorInterHost.bw_gbyte_per_s == doctest::Approx(19.294));
}

TEST_CASE("the worked numbers of 5.6") {
  // fp32 (1024, 1024) on (8,), 8 devices per host.
  MeshContext ctx = mesh_context({8}, {});
  const std::vector<std::int64_t> shape = {1024, 1024};
  CHECK(price_of(ctx, shape, "S(0)", "0:S(0)->R") == doctest::Approx(49.77).epsilon(1e-4));
  CHECK(price_of(ctx, shape, "P(sum)", "0:P(sum)->R") == doctest::Approx(92.95).epsilon(1e-4));
  CHECK(price_of(ctx, shape, "S(0)", "0:S(0)->S(1)") == doctest::Approx(16.67).epsilon(1e-3));
  // fp32 8x8x8 on (2,2,2), from S(0)RR on mesh dim 0: all_to_all vs all_gather.
  MeshContext cube = mesh_context({2, 2, 2}, {});
  const double a2a = price_of(cube, {8, 8, 8}, "S(0),R,R", "0:S(0)->S(1)");
  const double ag = price_of(cube, {8, 8, 8}, "S(0),R,R", "0:S(0)->R");
  CHECK(a2a == doctest::Approx(8.205).epsilon(1e-4));
  CHECK(ag == doctest::Approx(7.211).epsilon(1e-4));
  // R -> S is free in PyTorch's model, so gather + chunk beats the all_to_all.
  CHECK(price_of(cube, {8, 8, 8}, "R,R,R", "0:R->S(1)") == 0);
  CHECK(dtensor_all_gather_us(4.0 / 1024, 8, kDTensorIntraHost) ==
        doctest::Approx(49.77).epsilon(1e-4));
  CHECK(dtensor_all_reduce_us(4.0 / 1024, 8, kDTensorIntraHost) ==
        doctest::Approx(92.95).epsilon(1e-4));
}

TEST_CASE("dtensor model: the steps PyTorch prices at 0 that move data") {
  MeshContext ctx = mesh_context({4, 2}, {});
  // _S -> R gathers: priced like S -> R on the same bytes.
  const double strided = price_of(ctx, {64, 8}, "_S(0,2),S(0)", "1:S(0)->R");
  CHECK(strided > 6.6);
  CHECK(price_of(ctx, {64, 8}, "_S(0,2),R", "0:_S(0,2)->R") ==
        doctest::Approx(price_of(ctx, {64, 8}, "S(0),R", "0:S(0)->R")));
  // R -> P(sum) divides (memory traffic, at least the launch floor); R -> P(max) is free.
  CHECK(price_of(ctx, {64, 8}, "R,R", "0:R->P(sum)") >= 7.0);
  CHECK(price_of(ctx, {64, 8}, "R,R", "0:R->P(max)") == 0);
  // A one-rank group is skipped at runtime: 0.
  MeshContext one = mesh_context({4, 1}, {});
  CHECK(price_of(one, {64}, "R,P(sum)", "1:P(sum)->R") == 0);
}

TEST_CASE("dtensor model: inter-host dims are slower") {
  MeshContext ctx = mesh_context({2, 4}, {}, {}, 4);
  CHECK(price_of(ctx, {1024, 1024}, "P(sum),R", "0:P(sum)->R") >
        price_of(ctx, {1024, 1024}, "R,P(sum)", "1:P(sum)->R"));
}

}  // namespace
}  // namespace dtplan::redist
