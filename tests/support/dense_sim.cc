#include "support/dense_sim.h"

#include <algorithm>
#include <cmath>

#include "placement/owned_indices.h"
#include "placement/tensor_spec.h"

namespace dtplan::testing {
namespace {

using strategy::Placements;

std::int64_t product(const graph::Shape& s) {
  std::int64_t p = 1;
  for (std::int64_t d : s) p *= d;
  return p;
}

std::vector<std::vector<std::int64_t>> all_coords(const std::vector<std::int64_t>& mesh) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> c(mesh.size(), 0);
  while (true) {
    out.push_back(c);
    std::size_t k = mesh.size();
    while (k-- > 0 && ++c[k] == mesh[k]) c[k] = 0;
    if (k == static_cast<std::size_t>(-1)) return out;
  }
}

// The owned index sets of every rank with Partial treated as Replicate.
std::vector<std::vector<placement::IndexSet>> owned_sets(const graph::Shape& shape,
                                                         Placements placements,
                                                         const std::vector<std::int64_t>& mesh) {
  for (auto& p : placements) {
    if (p.is_partial()) p = placement::Placement::replicate();
  }
  auto spec = placement::TensorSpec::make(shape, core::DType::kF64, placements, mesh);
  std::vector<std::vector<placement::IndexSet>> out;
  for (const auto& c : all_coords(mesh)) out.push_back(*placement::owned_indices(*spec, mesh, c));
  return out;
}

// Local flat index -> global flat index for a rank owning `owned`.
std::vector<std::int64_t> local_to_global(const graph::Shape& shape,
                                          const std::vector<placement::IndexSet>& owned) {
  std::vector<std::int64_t> flat = {0};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::vector<std::int64_t> next;
    const std::vector<std::int64_t> idx = owned[d].to_vector();
    for (std::int64_t base : flat) {
      for (std::int64_t i : idx) next.push_back(base * shape[d] + i);
    }
    flat = std::move(next);
  }
  return flat;
}

}  // namespace

std::int64_t Dense::numel() const { return product(shape); }

std::vector<std::int64_t> Dense::strides() const {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Dense zeros(graph::Shape shape) {
  Dense d{std::move(shape), {}};
  d.v.assign(static_cast<std::size_t>(d.numel()), 0.0);
  return d;
}

Dense random_dense(graph::Shape shape, std::mt19937_64& rng, double lo, double hi) {
  Dense d = zeros(std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (double& x : d.v) x = u(rng);
  return d;
}

std::vector<std::int64_t> unravel(std::int64_t flat, const graph::Shape& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] == 0 ? 0 : flat % shape[i];
    flat = shape[i] == 0 ? 0 : flat / shape[i];
  }
  return idx;
}

std::int64_t ravel_broadcast(const std::vector<std::int64_t>& index, const graph::Shape& shape) {
  std::int64_t flat = 0;
  const std::size_t lead = index.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    flat = flat * shape[i] + (shape[i] == 1 ? 0 : index[lead + i]);
  }
  return flat;
}

std::vector<Piece> distribute(const Dense& global, const Placements& placements,
                              const std::vector<std::int64_t>& mesh, std::mt19937_64& rng) {
  const auto coords = all_coords(mesh);
  std::vector<Dense> full(coords.size(), global);
  std::uniform_real_distribution<double> u(-1, 1), pos(0.01, 1);
  // Partial mesh dims are split one after the other. Invariant: ranks that agree on the Partial
  // dims split so far hold the same value, so one split per such class serves all its ranks.
  std::vector<std::size_t> done;
  for (std::size_t k = 0; k < mesh.size(); ++k) {
    if (!placements[k].is_partial()) continue;
    const auto op = placements[k].reduce_op();
    const std::int64_t n = mesh[k];
    std::vector<bool> handled(coords.size(), false);
    for (std::size_t r = 0; r < coords.size(); ++r) {
      if (handled[r]) continue;
      // The class of r: ranks agreeing with it on the dims split so far.
      std::vector<std::size_t> cls;
      for (std::size_t q = 0; q < coords.size(); ++q) {
        bool same = true;
        for (std::size_t j : done) same = same && coords[q][j] == coords[r][j];
        if (same) cls.push_back(q);
      }
      const Dense base = full[r];
      std::vector<Dense> pieces(static_cast<std::size_t>(n), base);
      for (std::size_t e = 0; e < base.v.size(); ++e) {
        const double x = base.v[e];
        const auto exact = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n));
        double rest = op == placement::ReduceOp::kAvg ? x * static_cast<double>(n) : x;
        for (std::size_t i = 0; i < pieces.size(); ++i) {
          double& y = pieces[i].v[e];
          const bool last = i + 1 == pieces.size();
          switch (op) {
            case placement::ReduceOp::kSum:
            case placement::ReduceOp::kAvg:
              y = last ? rest : u(rng);
              rest -= last ? 0 : y;
              break;
            case placement::ReduceOp::kMax:
              y = i == exact ? x : x - pos(rng);
              break;
            case placement::ReduceOp::kMin:
              y = i == exact ? x : x + pos(rng);
              break;
          }
        }
      }
      for (std::size_t q : cls) {
        full[q] = pieces[static_cast<std::size_t>(coords[q][k])];
        handled[q] = true;
      }
    }
    done.push_back(k);
  }
  const auto owned = owned_sets(global.shape, placements, mesh);
  std::vector<Piece> out;
  for (std::size_t r = 0; r < coords.size(); ++r) {
    Piece p;
    p.owned = owned[r];
    graph::Shape local_shape;
    for (const auto& s : p.owned) local_shape.push_back(s.count());
    p.local = zeros(local_shape);
    const auto map = local_to_global(global.shape, p.owned);
    for (std::size_t i = 0; i < map.size(); ++i) {
      p.local.v[i] = full[r].v[static_cast<std::size_t>(map[i])];
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<graph::Shape> rank_shapes(const graph::Shape& shape, const Placements& placements,
                                      const std::vector<std::int64_t>& mesh) {
  std::vector<graph::Shape> out;
  for (const auto& sets : owned_sets(shape, placements, mesh)) {
    graph::Shape s;
    for (const auto& set : sets) s.push_back(set.count());
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<Dense> assemble(const std::vector<Dense>& locals, const graph::Shape& shape,
                              const Placements& placements, const std::vector<std::int64_t>& mesh,
                              std::string& why) {
  const auto coords = all_coords(mesh);
  const auto owned = owned_sets(shape, placements, mesh);
  // Reduce the ranks that differ only in Partial mesh dims.
  bool is_max = false, is_min = false;
  double avg_divisor = 1;
  for (std::size_t k = 0; k < mesh.size(); ++k) {
    if (!placements[k].is_partial()) continue;
    is_max = is_max || placements[k].reduce_op() == placement::ReduceOp::kMax;
    is_min = is_min || placements[k].reduce_op() == placement::ReduceOp::kMin;
    if (placements[k].reduce_op() == placement::ReduceOp::kAvg) {
      avg_divisor *= static_cast<double>(mesh[k]);
    }
  }
  Dense out = zeros(shape);
  std::vector<int> covered(out.v.size(), 0);
  for (std::size_t r = 0; r < coords.size(); ++r) {
    bool leader = true;
    for (std::size_t k = 0; k < mesh.size(); ++k) {
      leader = leader && (!placements[k].is_partial() || coords[r][k] == 0);
    }
    if (!leader) continue;
    graph::Shape local_shape;
    for (const auto& s : owned[r]) local_shape.push_back(s.count());
    Dense acc = zeros(local_shape);
    bool first = true;
    for (std::size_t q = 0; q < coords.size(); ++q) {
      bool member = true;
      for (std::size_t k = 0; k < mesh.size(); ++k) {
        member = member && (placements[k].is_partial() || coords[q][k] == coords[r][k]);
      }
      if (!member) continue;
      if (locals[q].shape != local_shape) {
        why = "rank " + std::to_string(q) + " holds " + graph::format_shape(locals[q].shape) +
              ", expected " + graph::format_shape(local_shape);
        return std::nullopt;
      }
      for (std::size_t e = 0; e < acc.v.size(); ++e) {
        const double x = locals[q].v[e];
        acc.v[e] = first    ? x
                   : is_max ? std::max(acc.v[e], x)
                   : is_min ? std::min(acc.v[e], x)
                            : acc.v[e] + x;
      }
      first = false;
    }
    const auto map = local_to_global(shape, owned[r]);
    for (std::size_t i = 0; i < map.size(); ++i) {
      const double x = acc.v[i] / avg_divisor;
      auto& slot = out.v[static_cast<std::size_t>(map[i])];
      auto& seen = covered[static_cast<std::size_t>(map[i])];
      if (seen > 0 && std::abs(slot - x) > 1e-9 * (1 + std::abs(x))) {
        why = "replicas disagree at flat index " + std::to_string(map[i]);
        return std::nullopt;
      }
      slot = x;
      ++seen;
    }
  }
  if (std::find(covered.begin(), covered.end(), 0) != covered.end()) {
    why = "an element is held by no rank";
    return std::nullopt;
  }
  return out;
}

bool close(const Dense& a, const Dense& b, double tolerance) {
  if (a.shape != b.shape) return false;
  for (std::size_t i = 0; i < a.v.size(); ++i) {
    if (std::abs(a.v[i] - b.v[i]) > tolerance * (1 + std::abs(b.v[i]))) return false;
  }
  return true;
}

}  // namespace dtplan::testing
