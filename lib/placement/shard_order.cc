#include "placement/shard_order.h"

#include <algorithm>
#include <cassert>

#include "core/hash.h"

namespace dtplan::placement {

namespace {

bool by_tensor_dim(const ShardStep& a, const ShardStep& b) { return a.tensor_dim < b.tensor_dim; }

std::string mesh_dim_text(std::int32_t mesh_dim, const Placement& p) {
  return "mesh dim " + std::to_string(mesh_dim) + " (" + to_string(p) + ")";
}

}  // namespace

core::Result<ShardOrder> ShardOrder::from_steps(std::vector<ShardStep> steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].tensor_dim < 0 || steps[i].mesh_dim < 0) {
      return core::Error::bad_input("shard order: negative dim in step (tensor dim " +
                                    std::to_string(steps[i].tensor_dim) + ", mesh dim " +
                                    std::to_string(steps[i].mesh_dim) + ")");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (steps[j].mesh_dim == steps[i].mesh_dim) {
        return core::Error::bad_input("shard order: mesh dim " + std::to_string(steps[i].mesh_dim) +
                                      " is listed twice");
      }
    }
  }
  std::stable_sort(steps.begin(), steps.end(), by_tensor_dim);
  ShardOrder out;
  out.steps_ = std::move(steps);
  return out;
}

std::span<const ShardStep> ShardOrder::steps_of(std::int32_t tensor_dim) const {
  auto [lo, hi] =
      std::equal_range(steps_.begin(), steps_.end(), ShardStep{tensor_dim, 0}, by_tensor_dim);
  return {lo, hi};
}

std::vector<std::int32_t> ShardOrder::mesh_dims_of(std::int32_t tensor_dim) const {
  std::vector<std::int32_t> out;
  for (const ShardStep& s : steps_of(tensor_dim)) out.push_back(s.mesh_dim);
  return out;
}

std::optional<std::int32_t> ShardOrder::last_mesh_dim(std::int32_t tensor_dim) const {
  std::span<const ShardStep> s = steps_of(tensor_dim);
  if (s.empty()) return std::nullopt;
  return s.back().mesh_dim;
}

std::optional<std::int32_t> ShardOrder::position_of(std::int32_t mesh_dim) const {
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].mesh_dim != mesh_dim) continue;
    std::size_t first = i;
    while (first > 0 && steps_[first - 1].tensor_dim == steps_[i].tensor_dim) --first;
    return static_cast<std::int32_t>(i - first);
  }
  return std::nullopt;
}

bool ShardOrder::is_default() const {
  for (std::size_t i = 1; i < steps_.size(); ++i) {
    if (steps_[i].tensor_dim == steps_[i - 1].tensor_dim &&
        steps_[i].mesh_dim <= steps_[i - 1].mesh_dim) {
      return false;
    }
  }
  return true;
}

void ShardOrder::append(std::int32_t tensor_dim, std::int32_t mesh_dim) {
  assert(!position_of(mesh_dim).has_value());
  auto at = std::upper_bound(steps_.begin(), steps_.end(), ShardStep{tensor_dim, 0}, by_tensor_dim);
  steps_.insert(at, ShardStep{tensor_dim, mesh_dim});
}

std::int32_t ShardOrder::pop_last(std::int32_t tensor_dim) {
  auto at = std::upper_bound(steps_.begin(), steps_.end(), ShardStep{tensor_dim, 0}, by_tensor_dim);
  assert(at != steps_.begin() && (at - 1)->tensor_dim == tensor_dim);
  std::int32_t mesh_dim = (at - 1)->mesh_dim;
  steps_.erase(at - 1);
  return mesh_dim;
}

ShardOrder default_shard_order(std::span<const Placement> placements) {
  std::vector<ShardStep> steps;
  for (std::size_t m = 0; m < placements.size(); ++m) {
    if (placements[m].is_shard_like()) {
      steps.push_back({placements[m].dim(), static_cast<std::int32_t>(m)});
    }
  }
  // Mesh dims were visited ascending; a stable sort by tensor dim keeps that order.
  auto order = ShardOrder::from_steps(std::move(steps));
  assert(order.ok());
  return std::move(order).value();
}

core::Status validate_shard_order(const ShardOrder& order, std::span<const Placement> placements) {
  for (const ShardStep& s : order.steps()) {
    if (s.mesh_dim >= static_cast<std::int32_t>(placements.size())) {
      return core::Error::bad_input("shard order " + to_string(order) + ": mesh dim " +
                                    std::to_string(s.mesh_dim) + " does not exist (the mesh has " +
                                    std::to_string(placements.size()) + " dims)");
    }
    const Placement& p = placements[static_cast<std::size_t>(s.mesh_dim)];
    if (!p.is_shard_like(s.tensor_dim)) {
      return core::Error::bad_input("shard order " + to_string(order) + ": " +
                                    mesh_dim_text(s.mesh_dim, p) + " does not shard tensor dim " +
                                    std::to_string(s.tensor_dim));
    }
  }
  for (std::size_t m = 0; m < placements.size(); ++m) {
    const auto mesh_dim = static_cast<std::int32_t>(m);
    if (placements[m].is_shard_like() && !order.position_of(mesh_dim).has_value()) {
      return core::Error::bad_input("shard order " + to_string(order) + ": " +
                                    mesh_dim_text(mesh_dim, placements[m]) + " is not listed");
    }
  }
  return {};
}

core::Result<ShardOrder> shard_order_from_positions(std::span<const Placement> placements,
                                                    std::span<const std::int32_t> positions) {
  assert(positions.size() == placements.size());
  ShardOrder def = default_shard_order(placements);
  std::vector<ShardStep> steps;
  for (std::size_t i = 0; i < def.steps().size();) {
    // One tensor dim's mesh dims, ascending: [i, j).
    std::size_t j = i;
    while (j < def.steps().size() && def.steps()[j].tensor_dim == def.steps()[i].tensor_dim) ++j;
    const std::int32_t tensor_dim = def.steps()[i].tensor_dim;
    const auto count = static_cast<std::int32_t>(j - i);
    std::vector<ShardStep> group(def.steps().begin() + static_cast<std::ptrdiff_t>(i),
                                 def.steps().begin() + static_cast<std::ptrdiff_t>(j));
    std::size_t with_suffix = 0;
    for (const ShardStep& s : group) with_suffix += positions[s.mesh_dim] >= 0 ? 1 : 0;
    if (with_suffix > 0) {
      std::string where = "tensor dim " + std::to_string(tensor_dim) + " is split by " +
                          std::to_string(count) + " mesh dim(s)";
      if (with_suffix != group.size()) {
        return core::Error::bad_input(where + " but only " + std::to_string(with_suffix) +
                                      " carry a shard-order suffix [k]; give all or none");
      }
      std::vector<ShardStep> ordered(group.size());
      std::vector<bool> seen(group.size(), false);
      for (const ShardStep& s : group) {
        const std::int32_t k = positions[s.mesh_dim];
        if (k >= count || seen[static_cast<std::size_t>(k)]) {
          return core::Error::bad_input(where + "; their suffixes must be 0.." +
                                        std::to_string(count - 1) + ", each once (mesh dim " +
                                        std::to_string(s.mesh_dim) + " has [" + std::to_string(k) +
                                        "])");
        }
        seen[static_cast<std::size_t>(k)] = true;
        ordered[static_cast<std::size_t>(k)] = s;
      }
      group = std::move(ordered);
    }
    steps.insert(steps.end(), group.begin(), group.end());
    i = j;
  }
  return ShardOrder::from_steps(std::move(steps));
}

std::string to_string(const ShardOrder& order) {
  std::string out = "{";
  std::span<const ShardStep> steps = order.steps();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    bool first_of_dim = i == 0 || steps[i - 1].tensor_dim != steps[i].tensor_dim;
    bool last_of_dim = i + 1 == steps.size() || steps[i + 1].tensor_dim != steps[i].tensor_dim;
    if (first_of_dim) {
      if (i > 0) out += ",";
      out += std::to_string(steps[i].tensor_dim) + ":[";
    } else {
      out += ",";
    }
    out += std::to_string(steps[i].mesh_dim);
    if (last_of_dim) out += "]";
  }
  return out + "}";
}

std::size_t hash_value(const ShardOrder& order) {
  std::size_t h = core::hash_combine(0, order.steps().size());
  for (const ShardStep& s : order.steps()) {
    h = core::hash_combine(
        h, (static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.tensor_dim)) << 32) |
               static_cast<std::uint32_t>(s.mesh_dim));
  }
  return h;
}

}  // namespace dtplan::placement
