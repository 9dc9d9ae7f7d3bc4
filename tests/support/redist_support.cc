#include "support/redist_support.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "core/strings.h"
#include "mesh/mesh_ops.h"
#include "placement/chunk.h"
#include "placement/local_shape.h"
#include "placement/placement_text.h"
#include "support/placement_specs.h"
#include "support/profiles.h"

namespace dtplan::testing {

using placement::Placement;

redist::MeshContext mesh_context(Ints shape, Names names, std::vector<Names> flatten,
                                 std::int64_t gpus_per_node) {
  auto mesh = mesh::DeviceMesh::create(std::move(shape), std::move(names));
  REQUIRE_MESSAGE(mesh.ok(), (mesh.ok() ? std::string() : mesh.error().message));
  for (const Names& dims : flatten) {
    auto sub = mesh::slice(*mesh, dims);
    REQUIRE_MESSAGE(sub.ok(), (sub.ok() ? std::string() : sub.error().message));
    auto flat = mesh::flatten(*sub);
    REQUIRE_MESSAGE(flat.ok(), (flat.ok() ? std::string() : flat.error().message));
  }
  auto ctx = redist::MeshContext::make(*mesh, gpus_per_node, "h100-dgx");
  REQUIRE_MESSAGE(ctx.ok(), (ctx.ok() ? std::string() : ctx.error().message));
  return std::move(ctx).value();
}

std::unique_ptr<redist::Planner> make_planner(redist::MeshContext ctx, redist::CostModelKind model,
                                              redist::WarningSink* sink) {
  return std::make_unique<redist::Planner>(
      std::move(ctx), redist::make_cost_model(model, profile("h100-dgx")), sink);
}

redist::RedistState state_of(const std::string& text) {
  auto list = placement::parse_placement_list(text, "state");
  REQUIRE_MESSAGE(list.ok(), (list.ok() ? std::string() : list.error().message));
  auto order = placement::shard_order_from_positions(list->placements, list->order_positions);
  REQUIRE_MESSAGE(order.ok(), (order.ok() ? std::string() : order.error().message));
  return {list->placements, *order};
}

std::vector<redist::Transform> steps_of(const std::string& text) {
  std::vector<redist::Transform> out;
  for (std::string_view item : core::split(text, ' ')) {
    if (item.empty()) continue;
    const std::size_t colon = item.find(':');
    const std::size_t arrow = item.find("->");
    REQUIRE_MESSAGE((colon != std::string_view::npos && arrow != std::string_view::npos),
                    std::string(item));
    redist::Transform t;
    for (std::string_view d : core::split(item.substr(0, colon), ',')) {
      t.mesh_dims.push_back(static_cast<std::int32_t>(core::parse_int(d, "dim").value()));
    }
    std::string_view rest = item.substr(arrow + 2);
    const std::size_t at = rest.find('@');
    const std::size_t slash = rest.find('/');
    std::string_view dst = rest.substr(0, std::min(at, slash));
    if (at != std::string_view::npos) {
      t.flattened_mesh = std::string(rest.substr(
          at + 1, slash == std::string_view::npos ? std::string_view::npos : slash - at - 1));
    }
    if (slash != std::string_view::npos) {
      t.avg_scale = core::parse_int(rest.substr(slash + 1), "scale").value();
    }
    t.src = placement::parse_placement(item.substr(colon + 1, arrow - colon - 1), "src").value();
    t.dst = placement::parse_placement(dst, "dst").value();
    t.kind = redist::transition_kind(t.src, t.dst).value();
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Placement> basic_placements(int rank) {
  std::vector<Placement> out = {Placement::replicate(), Placement::partial()};
  for (int d = 0; d < rank; ++d) out.push_back(Placement::shard(d));
  return out;
}

std::string RandomRequest::describe() const {
  return to_string(src) + " -> " + placement::format_placement_list(dst) + " on " +
         core::format_int_list(mesh);
}

placement::TensorSpec supported_dst(const placement::TensorSpec& src,
                                    const placement::TensorSpec& dst, const Ints& mesh) {
  std::vector<Placement> ps = dst.placements();
  bool changed = false;
  for (std::size_t m = 0; m < ps.size(); ++m) {
    const Placement& a = src.placement(m);
    if (ps[m].is_partial() && a != ps[m] && !a.is_replicate()) {
      ps[m] = Placement::replicate();
      changed = true;
    }
  }
  if (!changed) return dst;
  // Replacing shards of a tensor dim may break its order: keep the order's surviving steps.
  std::vector<placement::ShardStep> steps;
  for (const placement::ShardStep& s : dst.shard_order().steps()) {
    if (ps[static_cast<std::size_t>(s.mesh_dim)].is_shard_like()) steps.push_back(s);
  }
  auto spec = placement::TensorSpec::make(dst.shape(), dst.dtype(), ps, mesh,
                                          placement::ShardOrder::from_steps(steps).value());
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? std::string() : spec.error().message));
  return std::move(spec).value();
}

std::vector<Names> random_flatten_sets(std::mt19937_64& rng, const Names& names) {
  std::vector<Names> flats;
  const auto count = names.size() < 2 ? 0 : uniform(rng, 0, 2);
  for (std::int64_t i = 0; i < count; ++i) {
    Names dims;
    while (dims.size() < 2) {
      dims.clear();
      for (const std::string& name : names) {
        if (uniform(rng, 0, 1) == 1) dims.push_back(name);
      }
    }
    if (std::find(flats.begin(), flats.end(), dims) == flats.end()) flats.push_back(dims);
  }
  return flats;
}

RandomRequest random_request(std::mt19937_64& rng, bool strided, bool shuffle_order) {
  RandomSpecOptions o;
  o.strided = strided;
  o.shuffle_order = shuffle_order;
  o.max_ranks = 32;
  o.max_dim = 12;
  MeshAndSpec a = random_spec(rng, o);
  // A second spec on the same mesh and shape: draw until the mesh matches, then rebuild on it.
  for (int tries = 0; tries < 1000; ++tries) {
    MeshAndSpec b = random_spec(rng, o);
    if (b.mesh_sizes.size() != a.mesh_sizes.size()) continue;
    auto spec = placement::TensorSpec::make(a.spec.shape(), a.spec.dtype(), b.spec.placements(),
                                            a.mesh_sizes, b.spec.shard_order());
    if (!spec.ok()) continue;  // e.g. a tensor dim the other shape lacks
    return {a.mesh_sizes, a.spec, supported_dst(a.spec, *spec, a.mesh_sizes)};
  }
  return {a.mesh_sizes, a.spec, a.spec};
}

namespace {

using Coord = std::vector<std::int64_t>;

// Applies one step to every rank's local shape.
void simulate(const redist::Transform& t, const Ints& mesh, std::map<Coord, Ints>& shapes) {
  std::map<Coord, Ints> next = shapes;
  std::uint32_t mask = 0;
  for (std::int32_t m : t.mesh_dims) mask |= 1U << m;
  for (auto& [coord, shape] : next) {
    // This rank's group: coordinates equal off the step's mesh dims, row-major over them.
    std::int64_t n = 1, index = 0;
    for (std::int32_t m : t.mesh_dims) {
      n *= mesh[static_cast<std::size_t>(m)];
      index = index * mesh[static_cast<std::size_t>(m)] + coord[static_cast<std::size_t>(m)];
    }
    if (t.src.is_shard_like()) {  // gather the source dim: the group's pieces side by side
      std::int64_t total = 0;
      for (const auto& [other, s] : shapes) {
        bool same = true;
        for (std::size_t m = 0; m < mesh.size(); ++m) {
          if (!((mask >> m) & 1U) && other[m] != coord[m]) same = false;
        }
        if (same) total += s[static_cast<std::size_t>(t.src.dim())];
      }
      shape[static_cast<std::size_t>(t.src.dim())] = total;
    }
    if (t.dst.is_shard_like()) {  // split the target dim over the (flat) group
      auto& len = shape[static_cast<std::size_t>(t.dst.dim())];
      len = placement::split_length(t.dst, len, n, index);
    }
  }
  shapes = std::move(next);
}

}  // namespace

std::map<std::vector<std::int64_t>, Ints> rank_shapes_after(const redist::RedistPlan& plan) {
  const Ints& mesh = plan.mesh.shape;
  std::map<Coord, Ints> shapes;
  for_each_coord(mesh, [&](std::span<const std::int64_t> c) {
    shapes[Coord(c.begin(), c.end())] = placement::local_shape(plan.src, mesh, c).value();
  });
  for (const redist::PlanStep& s : plan.steps) simulate(s.transform, mesh, shapes);
  return shapes;
}

std::string check_rank_shapes(const redist::RedistPlan& plan, const Ints& mesh) {
  for (const auto& [coord, shape] : rank_shapes_after(plan)) {
    if (shape != placement::local_shape(plan.dst, mesh, coord).value()) {
      return "rank at " + core::format_int_list(coord) + " holds " + core::format_int_list(shape);
    }
  }
  return "";
}

}  // namespace dtplan::testing
