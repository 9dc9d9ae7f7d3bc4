#include "solve/engine/search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "solve/engine/elimination_order.h"

namespace dtplan::solve::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::vector<std::int32_t>> scopes_without(const std::vector<Factor>& factors,
                                                      const std::vector<char>& fixed) {
  std::vector<std::vector<std::int32_t>> scopes;
  scopes.reserve(factors.size());
  for (const Factor& f : factors) {
    std::vector<std::int32_t> s;
    for (std::int32_t v : f.scope) {
      if (!fixed[v]) s.push_back(v);
    }
    scopes.push_back(std::move(s));
  }
  return scopes;
}

class Search {
 public:
  Search(const EngineProblem& p, const EngineOptions& o, std::shared_ptr<const Outside> outside)
      : p_(p), o_(o), outside_(std::move(outside)) {
    const std::size_t n = p.domains.size();
    used_.assign(n, 0);
    for (const Factor& f : p.factors) {
      for (std::int32_t v : f.scope) used_[v] = 1;
    }
    fixed_.assign(n, 0);
  }

  EngineSolution run() {
    if (!choose_cutset()) {  // the clock ran out first: nothing found, nothing proven
      out_.complete = false;
      out_.stop = RunStatus::kTimeLimit;
      out_.lower_bound_us = -kInf;
      return std::move(out_);
    }
    out_.conditioned = static_cast<std::int32_t>(cutset_.size());
    out_.assignment.assign(p_.domains.size(), -1);
    path_.assign(p_.domains.size(), -1);
    double root_bound = -kInf;
    if (!cutset_.empty()) root_bound = bound(p_.factors, 0);
    explore(p_.factors, 0, root_bound);
    out_.complete = !stopped_;
    out_.lower_bound_us = stopped_ ? std::min(open_bound_, out_.value_us) : out_.value_us;
    if (!out_.found && !stopped_) out_.lower_bound_us = kInf;  // infeasible, proven
    return std::move(out_);
  }

 private:
  // False when the deadline passes first (each round plans an order over the whole problem:
  // on 20k-node problems, rounds take seconds and hundreds may be needed).
  bool choose_cutset() {
    for (;;) {
      if (Clock::now() > o_.limits.deadline) return false;
      const auto scopes = scopes_without(p_.factors, fixed_);
      std::vector<char> eliminable(used_.size());
      for (std::size_t v = 0; v < used_.size(); ++v)
        eliminable[v] = static_cast<char>(used_[v] && !fixed_[v]);
      OrderPlan plan = plan_order(p_.domains, scopes, eliminable, kInf, o_.limits.deadline);
      if (std::isinf(plan.total_work)) return false;  // the deadline passed while planning
      if (plan.max_message_entries <= static_cast<double>(o_.max_table_entries)) {
        leaf_order_ = std::move(plan.order);
        out_.width = plan.width;
        return true;
      }
      // Condition the variable with the most distinct neighbours (ties: lowest id).
      std::vector<std::vector<std::int32_t>> adj(used_.size());
      for (const auto& s : scopes) {
        for (std::int32_t a : s) adj[a].insert(adj[a].end(), s.begin(), s.end());
      }
      std::int32_t best = -1;
      std::size_t best_degree = 0;
      for (std::size_t v = 0; v < adj.size(); ++v) {
        if (!eliminable[v]) continue;
        std::sort(adj[v].begin(), adj[v].end());
        const auto degree =
            static_cast<std::size_t>(std::unique(adj[v].begin(), adj[v].end()) - adj[v].begin());
        if (best < 0 || degree > best_degree) {
          best = static_cast<std::int32_t>(v);
          best_degree = degree;
        }
      }
      fixed_[best] = 1;
      cutset_.push_back(best);
    }
  }

  // Mini-bucket lower bound of a search node at `depth` (cutset_[0, depth) fixed).
  double bound(const std::vector<Factor>& factors, std::size_t depth) {
    ++out_.search_nodes;
    if (depth_orders_.size() <= depth) depth_orders_.resize(depth + 1);
    if (depth_orders_[depth].empty()) {
      std::vector<char> fixed(used_.size(), 0), eliminable(used_.size(), 0);
      for (std::size_t d = 0; d < depth; ++d) fixed[cutset_[d]] = 1;
      for (std::size_t v = 0; v < used_.size(); ++v)
        eliminable[v] = static_cast<char>(used_[v] && !fixed[v]);
      depth_orders_[depth] =
          plan_order(p_.domains, scopes_without(factors, fixed), eliminable).order;
      depth_orders_[depth].push_back(-1);  // marks "computed" even when empty
    }
    std::vector<std::int32_t> order(depth_orders_[depth].begin(), depth_orders_[depth].end() - 1);
    const Elimination e =
        Elimination::run(p_.domains, factors, order, p_.memory, o_.limits, o_.max_table_entries);
    return e.relaxation_bound();
  }

  void leaf(const std::vector<Factor>& factors) {
    const Elimination e =
        Elimination::run(p_.domains, factors, leaf_order_, p_.memory, o_.limits, 0,
                         cutset_.empty() ? outside_ : nullptr, Retain::kArgmins);
    out_.elimination = e.stats();
    if (e.status() != RunStatus::kComplete) {
      stopped_ = true;
      out_.stop = e.status();
      open_bound_ = std::min(open_bound_, e.relaxation_bound());
      return;
    }
    std::vector<std::int64_t> targets;
    const RootChoice root = choose_root(e.factors(), e.remaining(), p_.memory, targets);
    if (!(root.cost_us < out_.value_us)) return;
    std::vector<std::int32_t> assignment = path_;
    if (!e.decode(assignment, targets).ok()) return;  // cannot happen: decode mirrors the run
    out_.found = true;
    out_.value_us = root.cost_us;
    out_.assignment = std::move(assignment);
    targets.resize(p_.factors.size());
    out_.targets = std::move(targets);
  }

  void explore(const std::vector<Factor>& factors, std::size_t depth, double node_bound) {
    if (Clock::now() > o_.limits.deadline) {
      stopped_ = true;
      out_.stop = RunStatus::kTimeLimit;
      open_bound_ = std::min(open_bound_, node_bound);
      return;
    }
    if (depth == cutset_.size()) {
      leaf(factors);
      return;
    }
    const std::int32_t v = cutset_[depth];
    std::vector<std::pair<double, std::int32_t>> children;
    std::vector<std::vector<Factor>> states;
    for (std::int32_t label = 0; label < p_.domains[v]; ++label) {
      std::vector<Factor> child = factors;
      for (Factor& f : child) {
        if (std::find(f.scope.begin(), f.scope.end(), v) != f.scope.end()) {
          f = condition_factor(f, v, label);
        }
      }
      children.emplace_back(bound(child, depth + 1), label);
      states.push_back(std::move(child));
      if (Clock::now() > o_.limits.deadline) break;
    }
    std::stable_sort(children.begin(), children.end());
    for (std::size_t k = 0; k < children.size(); ++k) {
      const auto [b, label] = children[k];
      if (stopped_) {
        open_bound_ = std::min(open_bound_, b);
        continue;
      }
      if (b == kInf || b >= out_.value_us) break;  // sorted: the rest cannot improve either
      path_[v] = label;
      explore(states[static_cast<std::size_t>(label)], depth + 1, b);
      path_[v] = -1;
    }
    if (children.size() < static_cast<std::size_t>(p_.domains[v])) {  // cut short by the clock
      stopped_ = true;
      out_.stop = RunStatus::kTimeLimit;
      open_bound_ = std::min(open_bound_, node_bound);
    }
  }

  const EngineProblem& p_;
  const EngineOptions& o_;
  std::shared_ptr<const Outside> outside_;
  std::vector<char> used_, fixed_;
  std::vector<std::int32_t> cutset_, leaf_order_, path_;
  std::vector<std::vector<std::int32_t>> depth_orders_;
  EngineSolution out_;
  bool stopped_ = false;
  double open_bound_ = kInf;
};

}  // namespace

OrderPlan leaf_plan(const EngineProblem& problem, double max_work, Clock::time_point deadline) {
  std::vector<char> used(problem.domains.size(), 0);
  std::vector<std::vector<std::int32_t>> scopes;
  for (const Factor& f : problem.factors) {
    for (std::int32_t v : f.scope) used[v] = 1;
    scopes.push_back(f.scope);
  }
  return plan_order(problem.domains, scopes, used, max_work, deadline);
}

EngineSolution solve_engine(const EngineProblem& problem, const EngineOptions& options,
                            std::shared_ptr<const Outside> outside) {
  return Search(problem, options, std::move(outside)).run();
}

}  // namespace dtplan::solve::detail
