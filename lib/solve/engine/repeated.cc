#include "solve/engine/repeated.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "solve/engine/elimination_order.h"

namespace dtplan::solve::detail {

namespace {

// plan_order's max_work: none.
constexpr double kNoLimit = std::numeric_limits<double>::infinity();
// Planned work (table entries) below which a decomposition is not compared with the unrolled plan.
constexpr double kSmallWork = 1e8;

bool same_table(const Table& a, const Table& b) {
  if (&a == &b) return true;  // shared (edges with one matrix share one table)
  return a.dims == b.dims && a.frontier == b.frontier && a.cost == b.cost && a.begin == b.begin &&
         a.point_cost == b.point_cost && a.point_mem == b.point_mem &&
         a.absorbed_min == b.absorbed_min && a.absorbed_max == b.absorbed_max;
}

struct Placement {
  std::int32_t block = -1;
  std::int32_t position = -1;
};

// Factors touching a node, with scopes renamed to positions: (positions, factor id), sorted.
using Incident = std::vector<std::pair<std::vector<std::int32_t>, std::int32_t>>;

class GroupBuilder {
 public:
  GroupBuilder(const EngineProblem& full, const RepeatGroup& group,
               const std::vector<std::vector<std::int32_t>>& touching)
      : full_(full), group_(group), touching_(touching), where_(full.domains.size()) {
    for (std::size_t b = 0; b < group.blocks.size(); ++b) {
      for (std::size_t p = 0; p < group.blocks[b].size(); ++p) {
        where_[group.blocks[b][p]] = {static_cast<std::int32_t>(b), static_cast<std::int32_t>(p)};
      }
    }
  }

  // Per position and block b: the end of the run of blocks from b on in which the position's node
  // is local (its factors touch only its own block) with factors identical from block to block;
  // b itself when it is not local there. The position is interior to the group of blocks
  // [first, end) exactly when end <= reach[position][first].
  std::vector<std::vector<std::size_t>> reach() const {
    const std::size_t size = group_.blocks[0].size();
    const std::size_t n = group_.blocks.size();
    std::vector<std::vector<std::size_t>> out(size, std::vector<std::size_t>(n));
    for (std::size_t p = 0; p < size; ++p) {
      Incident next;
      for (std::size_t b = n; b-- > 0;) {
        Incident inc;
        if (!incident(group_.blocks[b][p], static_cast<std::int32_t>(b), inc)) {
          out[p][b] = b;
        } else {
          const bool joins = b + 1 < n && out[p][b + 1] > b + 1 && matches(inc, next);
          out[p][b] = joins ? out[p][b + 1] : b + 1;
        }
        next = std::move(inc);
      }
    }
    return out;
  }

 private:
  // False when the node touches another block or two factors share a renamed scope.
  bool incident(NodeIndex node, std::int32_t block, Incident& out) const {
    for (std::int32_t id : touching_[node]) {
      std::vector<std::int32_t> positions;
      for (std::int32_t v : full_.factors[id].scope) {
        if (where_[v].block != block) return false;
        positions.push_back(where_[v].position);
      }
      out.emplace_back(std::move(positions), id);
    }
    std::sort(out.begin(), out.end());
    for (std::size_t k = 1; k < out.size(); ++k) {
      if (out[k].first == out[k - 1].first) return false;
    }
    return true;
  }

  bool matches(const Incident& a, const Incident& b) const {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k].first != b[k].first ||
          !same_table(*full_.factors[a[k].second].table, *full_.factors[b[k].second].table)) {
        return false;
      }
    }
    return true;
  }

  const EngineProblem& full_;
  const RepeatGroup& group_;
  const std::vector<std::vector<std::int32_t>>& touching_;
  std::vector<Placement> where_;
};

}  // namespace

namespace {

std::vector<std::vector<std::int32_t>> touching_factors(const EngineProblem& p) {
  std::vector<std::vector<std::int32_t>> touching(p.domains.size());
  for (std::size_t id = 0; id < p.factors.size(); ++id) {
    for (std::int32_t v : p.factors[id].scope) touching[v].push_back(static_cast<std::int32_t>(id));
  }
  return touching;
}

// Block 0's factors that touch an interior position, with scopes renamed to positions.
std::vector<Factor> local_factors(const GroupShape& shape, const EngineProblem& p,
                                  const std::vector<std::vector<std::int32_t>>& touching) {
  const auto& block0 = shape.blocks[0];
  std::map<NodeIndex, std::int32_t> position;
  for (std::size_t k = 0; k < block0.size(); ++k)
    position[block0[k]] = static_cast<std::int32_t>(k);
  std::vector<std::int32_t> ids;
  for (std::size_t k = 0; k < block0.size(); ++k) {
    if (shape.interior[k])
      ids.insert(ids.end(), touching[block0[k]].begin(), touching[block0[k]].end());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Factor> local;
  for (std::int32_t id : ids) {
    Factor f{p.factors[id].table, {}};
    for (std::int32_t v : p.factors[id].scope) f.scope.push_back(position[v]);
    local.push_back(std::move(f));
  }
  return local;
}

std::vector<std::int32_t> block_domains(const GroupShape& shape, const EngineProblem& p) {
  std::vector<std::int32_t> domains;
  for (NodeIndex n : shape.blocks[0]) domains.push_back(p.domains[n]);
  return domains;
}

// One way to decompose a group: its blocks (the group's, or trimmed at either end), interiors,
// elimination order and the residual tables' scopes (positions).
struct Candidate {
  GroupShape shape;
  OrderPlan order;
  std::vector<std::vector<std::int32_t>> residual;
  double work = 0;  // planned: the interior once, the dropped blocks unrolled, the residual copies
};

// `interior`: GroupBuilder's for `group`.
std::optional<Candidate> candidate(const RepeatGroup& group, std::vector<char> interior,
                                   const EngineProblem& full,
                                   const std::vector<std::vector<std::int32_t>>& touching,
                                   const EngineOptions& options, std::size_t dropped) {
  Candidate c;
  c.shape.blocks = group.blocks;
  c.shape.interior = std::move(interior);
  if (std::none_of(c.shape.interior.begin(), c.shape.interior.end(),
                   [](char i) { return i != 0; })) {
    return std::nullopt;
  }
  std::vector<std::vector<std::int32_t>> scopes;
  for (const Factor& f : local_factors(c.shape, full, touching)) scopes.push_back(f.scope);
  const std::vector<std::int32_t> domains = block_domains(c.shape, full);
  c.order = plan_order(domains, scopes, c.shape.interior, kNoLimit, options.limits.deadline);
  if (std::isinf(c.order.total_work) ||
      c.order.max_message_entries > static_cast<double>(options.max_table_entries)) {
    return std::nullopt;
  }
  c.residual = remaining_scopes(scopes, c.order.order, c.shape.blocks[0].size());
  double residual_entries = 0;
  for (const auto& r : c.residual) {
    double entries = 1;
    for (std::int32_t pos : r) entries *= domains[static_cast<std::size_t>(pos)];
    residual_entries += entries;
  }
  c.work = c.order.total_work * static_cast<double>(1 + dropped) +
           residual_entries * static_cast<double>(c.shape.blocks.size());
  return c;
}

}  // namespace

std::vector<GroupShape> analyse_repeats(const std::vector<RepeatGroup>& repeats,
                                        const EngineProblem& full, const EngineOptions& options) {
  std::vector<GroupShape> shapes;
  const auto touching = touching_factors(full);
  std::vector<char> absorbed(full.factors.size(), 0);
  std::vector<std::vector<std::int32_t>> global_scopes;  // the residual copies' scopes
  double work = 0;                                       // planned work of the decomposition
  for (const RepeatGroup& group : repeats) {
    if (group.blocks.size() < 2 || group.blocks[0].empty()) continue;
    // The whole group, or without its first and / or last block (an end block whose neighbours
    // differ can make a position a port in every block): the least planned work; ties to the
    // fewest blocks dropped, then to dropping the first.
    // A trim that leaves the interior as it was only adds work: it is not planned.
    std::optional<Candidate> best;
    std::vector<char> whole;
    const auto reach = GroupBuilder(full, group, touching).reach();
    constexpr std::size_t kTrims[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};  // (first, last)
    for (const auto& [first, last] : kTrims) {
      const std::size_t n = group.blocks.size();
      if (n < first + last + 2) continue;
      std::vector<char> interior(reach.size());
      for (std::size_t p = 0; p < reach.size(); ++p) interior[p] = n - last <= reach[p][first];
      if (first + last == 0) {
        whole = interior;
      } else if (interior == whole) {
        continue;
      }
      RepeatGroup trimmed;
      trimmed.blocks.assign(group.blocks.begin() + static_cast<std::ptrdiff_t>(first),
                            group.blocks.end() - static_cast<std::ptrdiff_t>(last));
      auto c = candidate(trimmed, std::move(interior), full, touching, options, first + last);
      if (c && (!best || c->work < best->work)) best = std::move(c);
    }
    if (!best) continue;
    GroupShape& shape = best->shape;
    work += best->order.total_work;
    for (const auto& block : shape.blocks) {
      for (std::size_t k = 0; k < block.size(); ++k) {
        if (!shape.interior[k]) continue;
        for (std::int32_t id : touching[block[k]]) absorbed[id] = 1;
      }
      for (const auto& r : best->residual) {
        global_scopes.emplace_back();
        for (std::int32_t pos : r) global_scopes.back().push_back(block[pos]);
      }
    }
    shape.order = std::move(best->order.order);
    shapes.push_back(std::move(shape));
  }
  if (shapes.empty()) return shapes;
  // Worth it only when eliminating each interior once plus the global problem is planned to cost
  // less than the unrolled problem (few blocks with wide ports can cost more).
  std::vector<char> used(full.domains.size(), 0);
  for (std::size_t id = 0; id < full.factors.size(); ++id) {
    if (!absorbed[id]) global_scopes.push_back(full.factors[id].scope);
  }
  for (const auto& scope : global_scopes) {
    for (std::int32_t v : scope) used[v] = 1;
  }
  // Planned past the deadline (work +inf), nothing is decomposed: the solve stops at once anyway.
  work +=
      plan_order(full.domains, global_scopes, used, kNoLimit, options.limits.deadline).total_work;
  // A decomposition planned under kSmallWork entries is kept unasked: planning the unrolled order
  // to compare can take longer than either elimination (a window's 19.5k nodes of 1 to 6 labels
  // on LLaMA3-70B, 2x256x2 or 128x8: seconds, for a decomposition of 3e5 entries).
  if (work >= kSmallWork && work >= leaf_plan(full, work, options.limits.deadline).total_work) {
    shapes.clear();
  }
  return shapes;
}

Decomposition decompose(const std::vector<GroupShape>& shapes, const EngineProblem& problem,
                        const EngineOptions& options,
                        const std::vector<std::shared_ptr<const Outside>>* sub_outside,
                        Retain retain) {
  Decomposition d;
  const auto touching = touching_factors(problem);
  std::vector<char> absorbed(problem.factors.size(), 0);  // factors inside a shared interior
  for (std::size_t g = 0; g < shapes.size(); ++g) {
    const GroupShape& shape = shapes[g];
    GroupPlan plan;
    plan.shape = &shape;
    plan.sub =
        Elimination::run(block_domains(shape, problem), local_factors(shape, problem, touching),
                         shape.order, problem.memory, options.limits, 0,
                         sub_outside != nullptr ? (*sub_outside)[g] : nullptr, retain);
    if (plan.sub.status() != RunStatus::kComplete) {
      d.complete = false;
      d.stop = plan.sub.status();
      return d;
    }
    plan.residual = plan.sub.remaining();
    for (const auto& block : shape.blocks) {
      for (std::size_t k = 0; k < block.size(); ++k) {
        if (!shape.interior[k]) continue;
        for (std::int32_t id : touching[block[k]]) absorbed[id] = 1;
      }
    }
    d.groups.push_back(std::move(plan));
  }
  d.global.domains = problem.domains;
  d.global.memory = problem.memory;
  for (std::size_t id = 0; id < problem.factors.size(); ++id) {
    if (!absorbed[id]) d.global.factors.push_back(problem.factors[id]);
  }
  for (GroupPlan& plan : d.groups) {
    std::int64_t interior = 0;
    for (char c : plan.shape->interior) interior += c;
    for (const auto& block : plan.shape->blocks) {
      plan.copies.emplace_back();
      for (std::int32_t r : plan.residual) {
        const Factor& f = plan.sub.factors()[r];
        Factor copy{f.table, {}};
        for (std::int32_t pos : f.scope) copy.scope.push_back(block[pos]);
        plan.copies.back().push_back(static_cast<std::int32_t>(d.global.factors.size()));
        d.global.factors.push_back(std::move(copy));
      }
      ++d.blocks;
      d.interior_nodes += interior;
    }
  }
  return d;
}

core::Status decode_blocks(const Decomposition& d, EngineSolution& solution) {
  for (const GroupPlan& plan : d.groups) {
    for (std::size_t b = 0; b < plan.shape->blocks.size(); ++b) {
      const auto& block = plan.shape->blocks[b];
      std::vector<std::int32_t> local(block.size(), -1);
      for (std::size_t p = 0; p < block.size(); ++p) {
        if (!plan.shape->interior[p]) local[p] = solution.assignment[block[p]];
      }
      std::vector<std::int64_t> targets(plan.sub.factors().size(), -1);
      for (std::size_t k = 0; k < plan.residual.size(); ++k) {
        targets[plan.residual[k]] = solution.targets[plan.copies[b][k]];
      }
      DTPLAN_CHECK(plan.sub.decode(local, targets));
      for (std::size_t p = 0; p < block.size(); ++p) {
        if (plan.shape->interior[p]) solution.assignment[block[p]] = local[p];
      }
    }
  }
  return {};
}

}  // namespace dtplan::solve::detail
