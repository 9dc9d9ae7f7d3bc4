#include "strategy/view_map.h"

#include <algorithm>
#include <optional>

#include "placement/chunk.h"

namespace dtplan::strategy {
namespace {

using placement::Placement;

std::int64_t product(const graph::Shape& s, std::int32_t begin, std::int32_t end) {
  std::int64_t p = 1;
  for (std::int32_t i = begin; i < end; ++i) p *= s[static_cast<std::size_t>(i)];
  return p;
}

bool has_zero(const graph::Shape& s) { return std::find(s.begin(), s.end(), 0) != s.end(); }

}  // namespace

core::Result<std::vector<ViewGroup>> view_groups(const graph::Shape& from, const graph::Shape& to) {
  auto mismatch = [&] {
    return core::Error::bad_input("view: " + graph::format_shape(from) + " and " +
                                  graph::format_shape(to) + " have different element counts");
  };
  const auto nf = static_cast<std::int32_t>(from.size());
  const auto nt = static_cast<std::int32_t>(to.size());
  std::vector<ViewGroup> groups;
  if (has_zero(from) || has_zero(to)) {
    if (!has_zero(from) || !has_zero(to)) return mismatch();
    groups.push_back({0, nf, 0, nt});
    return groups;
  }
  std::int32_t i = 0, j = 0;
  while (i < nf || j < nt) {
    const bool f_one = i < nf && from[static_cast<std::size_t>(i)] == 1;
    const bool t_one = j < nt && to[static_cast<std::size_t>(j)] == 1;
    if (f_one && t_one) {
      groups.push_back({i, i + 1, j, j + 1});
      ++i, ++j;
    } else if (f_one || (i < nf && j >= nt)) {
      if (!f_one) return mismatch();
      groups.push_back({i, i + 1, j, j});
      ++i;
    } else if (t_one || (j < nt && i >= nf)) {
      if (!t_one) return mismatch();
      groups.push_back({i, i, j, j + 1});
      ++j;
    } else {
      // Both sides > 1: grow the smaller product until they meet. Products of distinct dims are
      // bounded by the element count, which fits in int64.
      ViewGroup g{i, i + 1, j, j + 1};
      std::int64_t f = from[static_cast<std::size_t>(i++)], t = to[static_cast<std::size_t>(j++)];
      while (f != t) {
        if (f < t) {
          if (i >= nf) return mismatch();
          f *= from[static_cast<std::size_t>(i++)];
        } else {
          if (j >= nt) return mismatch();
          t *= to[static_cast<std::size_t>(j++)];
        }
      }
      g.in_end = i;
      g.out_end = j;
      groups.push_back(g);
    }
  }
  return groups;
}

ViewPlacements propagate_view(const graph::Shape& from, const graph::Shape& to,
                              std::span<const ViewGroup> groups, const Placements& src,
                              std::span<const std::int64_t> mesh_sizes) {
  ViewPlacements out{src, Placements(src.size())};
  graph::Shape local_in = from, local_out = to;
  const bool empty = has_zero(from);
  for (std::size_t k = 0; k < src.size(); ++k) {
    const Placement& p = src[k];
    if (!p.is_shard_like()) {
      out.output[k] = p;
      continue;
    }
    const std::int64_t m = mesh_sizes[k];
    const std::int32_t d = p.dim();
    const auto g = std::find_if(groups.begin(), groups.end(), [d](const ViewGroup& vg) {
      return vg.in_begin <= d && d < vg.in_end;
    });
    std::optional<Placement> mapped;
    const std::int64_t sf_in = p.split_factor();
    const std::int64_t length = local_in[static_cast<std::size_t>(d)];
    if (!empty && g != groups.end() && g->out_begin < g->out_end && length % sf_in == 0) {
      const std::int64_t piece = length / sf_in;
      const bool in_ok = piece % m == 0 || product(local_in, d + 1, g->in_end) == 1;
      std::int64_t stripes = 0;
      const bool overflow =
          __builtin_mul_overflow(sf_in, product(local_in, g->in_begin, d), &stripes);
      // A shard that starts the group (one stripe) may only go to the group's first output dim,
      // as DTensor's Split rule (see the header).
      const std::int32_t last = stripes == 1 ? g->out_begin + 1 : g->out_end;
      for (std::int32_t j = g->out_begin; in_ok && !overflow && j < last; ++j) {
        const std::int64_t prefix = product(local_out, g->out_begin, j);
        if (prefix == 0 || stripes == 0 || stripes % prefix != 0) continue;
        const std::int64_t sf_out = stripes / prefix;
        const std::int64_t size_j = local_out[static_cast<std::size_t>(j)];
        if (size_j % sf_out != 0 || size_j / sf_out == 0) continue;
        if ((size_j / sf_out) % m != 0 && product(local_out, j + 1, g->out_end) != 1) continue;
        mapped = Placement::strided_shard(j, sf_out);
        break;
      }
    }
    if (!mapped) {
      out.input[k] = Placement::replicate();
      out.output[k] = Placement::replicate();
      continue;
    }
    out.output[k] = *mapped;
    local_in[static_cast<std::size_t>(d)] = placement::split_length(p, length, m, 0);
    auto& lj = local_out[static_cast<std::size_t>(mapped->dim())];
    lj = placement::split_length(*mapped, lj, m, 0);
  }
  return out;
}

}  // namespace dtplan::strategy
