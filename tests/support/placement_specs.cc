#include "support/placement_specs.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "core/strings.h"

namespace dtplan::testing {

using placement::Placement;
using placement::ReduceOp;

std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

placement::TensorSpec spec_of(std::vector<std::int64_t> shape, const std::string& placements,
                              const std::vector<std::int64_t>& mesh_sizes, core::DType dtype) {
  auto list = placement::parse_placement_list(placements, "spec");
  REQUIRE_MESSAGE(list.ok(), placements);
  auto spec = placement::TensorSpec::make(std::move(shape), dtype, *list, mesh_sizes);
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? std::string() : spec.error().message));
  return std::move(spec).value();
}

std::int64_t MeshAndSpec::world() const {
  std::int64_t out = 1;
  for (std::int64_t s : mesh_sizes) out *= s;
  return out;
}

std::string MeshAndSpec::describe() const {
  return to_string(spec) + " on " + core::format_int_list(mesh_sizes);
}

std::vector<std::int64_t> random_mesh_sizes(std::mt19937_64& rng, std::int64_t max_ranks,
                                            std::int64_t min_size) {
  const std::int64_t ndim = uniform(rng, 1, 4);
  std::vector<std::int64_t> sizes;
  std::int64_t ranks = 1;
  for (std::int64_t i = 0; i < ndim; ++i) {
    const std::int64_t cap = std::min<std::int64_t>(8, max_ranks / ranks);
    const std::int64_t size = cap < min_size ? min_size : uniform(rng, min_size, cap);
    if (ranks * size > max_ranks) break;
    sizes.push_back(size);
    ranks *= size;
  }
  if (sizes.empty()) sizes.push_back(min_size);
  return sizes;
}

MeshAndSpec random_spec(std::mt19937_64& rng, const RandomSpecOptions& options) {
  std::vector<std::int64_t> mesh = random_mesh_sizes(rng, options.max_ranks, options.min_mesh_size);
  const std::int64_t rank = uniform(rng, 1, 3);
  std::vector<std::int64_t> shape;
  for (std::int64_t d = 0; d < rank; ++d) shape.push_back(uniform(rng, 0, options.max_dim));
  // One partial op class per spec: {sum, avg} may mix, max and min stand alone.
  const std::int64_t op_class = uniform(rng, 0, 2);
  std::vector<Placement> placements;
  for (std::size_t m = 0; m < mesh.size(); ++m) {
    const std::int64_t kind = uniform(rng, 0, 3);
    const auto dim = static_cast<std::int32_t>(uniform(rng, 0, rank - 1));
    if (kind == 1 && options.partial) {
      ReduceOp op = op_class == 1             ? ReduceOp::kMax
                    : op_class == 2           ? ReduceOp::kMin
                    : uniform(rng, 0, 1) == 0 ? ReduceOp::kSum
                                              : ReduceOp::kAvg;
      placements.push_back(Placement::partial(op));
    } else if (kind == 2 && options.strided) {
      placements.push_back(Placement::strided_shard(dim, uniform(rng, 2, 4)));
    } else if (kind >= 2 || (kind == 1 && !options.partial)) {
      placements.push_back(Placement::shard(dim));
    } else {
      placements.push_back(Placement::replicate());
    }
  }
  placement::ShardOrder order = placement::default_shard_order(placements);
  if (options.shuffle_order) {
    std::vector<placement::ShardStep> steps(order.steps().begin(), order.steps().end());
    // Shuffle within each tensor dim's run of steps.
    for (std::size_t i = 0; i < steps.size();) {
      std::size_t j = i;
      while (j < steps.size() && steps[j].tensor_dim == steps[i].tensor_dim) ++j;
      std::shuffle(steps.begin() + static_cast<std::ptrdiff_t>(i),
                   steps.begin() + static_cast<std::ptrdiff_t>(j), rng);
      i = j;
    }
    order = placement::ShardOrder::from_steps(std::move(steps)).value();
  }
  auto spec = placement::TensorSpec::make(shape, core::DType::kBF16, placements, mesh, order);
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? std::string() : spec.error().message));
  return {mesh, std::move(spec).value()};
}

void for_each_coord(std::span<const std::int64_t> mesh_sizes,
                    const std::function<void(std::span<const std::int64_t>)>& visit) {
  std::vector<std::int64_t> coord(mesh_sizes.size(), 0);
  while (true) {
    visit(coord);
    std::size_t k = coord.size();
    while (true) {
      if (k == 0) return;
      --k;
      if (++coord[k] < mesh_sizes[k]) break;
      coord[k] = 0;
    }
  }
}

}  // namespace dtplan::testing
