#include "support/replay_plans.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "placement/placement_text.h"

namespace dtplan::testing {

redist::RedistPlan redist_plan(Ints mesh, Names names, std::vector<Names> flatten, Ints shape,
                               core::DType dtype, const std::string& src, const std::string& dst) {
  auto planner = make_planner(mesh_context(mesh, names, flatten), redist::CostModelKind::kNccl);
  auto spec = [&](const std::string& text) {
    auto list = placement::parse_placement_list(text, "spec");
    REQUIRE(list.ok());
    auto s = placement::TensorSpec::make(shape, dtype, *list, mesh);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
    return *s;
  };
  auto plan = planner->plan_uncached(spec(src), spec(dst), {});
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? std::string() : plan.error().message));
  return std::move(plan).value();
}

std::optional<redist::RedistPlan> random_redist_plan(std::mt19937_64& rng, std::int64_t max_world) {
  RandomRequest req = random_request(rng, rng() % 3 == 0, rng() % 2 == 0);
  std::int64_t world = 1;
  for (std::int64_t m : req.mesh) world *= m;
  if (world > max_world) return std::nullopt;
  Names names;
  for (std::size_t d = 0; d < req.mesh.size(); ++d) names.push_back("d" + std::to_string(d));
  std::vector<Names> flats;
  if (req.mesh.size() >= 2 && rng() % 2 == 0) {
    Names dims;
    for (std::size_t d = 0; d < names.size(); ++d) {
      if (rng() % 2 == 0) dims.push_back(names[d]);
    }
    if (dims.size() >= 2) flats.push_back(dims);
  }
  const std::int64_t gpus = 1 + static_cast<std::int64_t>(rng() % 8);
  auto planner =
      make_planner(mesh_context(req.mesh, names, flats, gpus), redist::CostModelKind::kNccl);
  const placement::TensorSpec dst = supported_dst(req.src, req.dst, req.mesh);
  auto plan = planner->plan_uncached(req.src, dst, {});
  if (!plan.ok()) return std::nullopt;
  return std::move(plan).value();
}

}  // namespace dtplan::testing
