#include "redist/min_cost_planner.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <optional>

#include "redist/search_space.h"

namespace dtplan::redist {

namespace {

constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max();

struct HeapEntry {
  std::int64_t f = 0;
  std::int32_t steps = 0;
  std::int32_t node = 0;
};

// Min-heap order: f, then steps, then node index (any total order works: the result is extracted
// from all optimal paths afterwards).
struct HeapAfter {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const {
    if (a.f != b.f) return a.f > b.f;
    if (a.steps != b.steps) return a.steps > b.steps;
    return a.node > b.node;
  }
};

// An optimal edge of the search, for the path extraction.
struct Link {
  std::int32_t parent, ordinal, child;
};

struct ParentEdge {
  std::int32_t parent = -1;
  std::int32_t ordinal = 0;
  std::int32_t next = -1;  // the node's next optimal parent edge, or -1
};

}  // namespace

// Placement classes of the heuristic's bounds.
constexpr std::size_t kClassR = 0, kClassP = 1, kClassS = 2;

struct MinCostPlanner::Impl {
  explicit Impl(StepPricer& p) : pricer(p) {}

  StepPricer& pricer;
  SearchSpace space;
  FlatMap<StateKey, std::int32_t, StateKeyHash> index{10};
  std::vector<StateKey> keys;
  std::vector<std::int64_t> g;
  std::vector<std::int64_t> h;
  std::vector<std::int32_t> steps;
  std::vector<std::int32_t> origin;  // the source (index into search's `from`) of g's path
  std::vector<std::int32_t> head;    // first optimal parent edge
  std::vector<std::uint8_t> closed;
  std::vector<ParentEdge> edges;
  std::vector<HeapEntry> heap;
  std::vector<Link> links;  // path extraction scratch
  std::vector<std::int32_t> stack;
  std::vector<std::uint8_t> on_path;
  // The heuristic's per mesh dim lower bounds by placement class (R, P, shard-like).
  std::array<std::array<std::int64_t, 3>, kMaxSearchDims> bound{};
  bool use_heuristic = true;
  bool flattened = true;
  std::optional<core::Error> error;

  std::int32_t node_of(StateKey key, bool& added) {
    auto [slot, fresh] = index.insert(key, static_cast<std::int32_t>(keys.size()));
    added = fresh;
    if (fresh) {
      keys.push_back(key);
      g.push_back(kInf);
      steps.push_back(0);
      origin.push_back(-1);
      head.push_back(-1);
      closed.push_back(0);
      h.push_back(0);
    }
    return *slot;
  }

  // The heuristic: for each mesh dim whose placement differs from the target's, the cheapest
  // move that could take it away from its current placement class; for a dim that holds the
  // target's placement but must first leave its tensor dim's order (SearchSpace::misplaced), the
  // cheapest removal plus the cheapest move from the class it then has (R or shard-like: it has
  // to come back). Consistent: a move drops a dim's term by at most the move's cost (share).
  std::int64_t heuristic(StateKey key) const {
    if (!use_heuristic) return 0;
    const std::uint32_t moved = space.misplaced(key);
    std::int64_t out = 0;
    for (int m = 0; m < space.ndim(); ++m) {
      const auto& b = bound[static_cast<std::size_t>(m)];
      const auto p = static_cast<std::uint8_t>(key.placements >> (8 * m));
      if ((moved >> m) & 1U) {
        out += b[kClassS] + std::min(b[kClassR], b[kClassS]);
      } else if (p != space.dst_pid(m)) {
        out += b[static_cast<std::size_t>(space.placement_class(p))];
      }
    }
    return out;
  }

  // The states searched for (plan_many: all of a row's targets) -> their index in `found`.
  FlatMap<StateKey, std::int32_t, StateKeyHash> wanted{4};
  std::vector<std::int32_t> found;  // per wanted state: its node once settled, else -1

  core::Status compute_bounds();
  void reset(const SearchOptions& options);
  // Settles states from the states `from` (each at cost `seed_ps[i]`, 0 if seed_ps is empty) in
  // order of g + h (ties: fewer steps, then lower node) until every state in `wanted` is settled
  // or none is left; found[] gets their nodes, origin[] the index in `from` of each node's path
  // (a state listed twice is seeded at the smaller cost, the first index on ties).
  // @post error (kUnsupported) past options.max_states, or a pricing error.
  core::Status search(std::span<const StateKey> from, const SearchOptions& options,
                      SearchResult& out, std::span<const std::int64_t> seed_ps = {});
  core::Result<std::int64_t> price(const Move& mv) {
    DTPLAN_TRY(PricedQuery p, pricer.price(space.query(mv)));
    return p.cost_ps;
  }
};

namespace {

// Relaxes every move of the loaded state from node u.
class Relax final : public MoveVisitor {
 public:
  Relax(MinCostPlanner::Impl& s, std::int32_t u) : s_(s), u_(u) {}
  bool visit(const Move& mv) override;

 private:
  MinCostPlanner::Impl& s_;
  std::int32_t u_;
  std::int32_t ordinal_ = 0;
};

// Finds the move with a given ordinal.
class Pick final : public MoveVisitor {
 public:
  explicit Pick(std::int32_t ordinal) : want_(ordinal) {}
  bool visit(const Move& mv) override {
    if (seen_++ != want_) return true;
    found = mv;
    return false;
  }
  std::optional<Move> found;

 private:
  std::int32_t want_;
  std::int32_t seen_ = 0;
};

Transform to_transform(const Move& mv, const MeshContext& mesh) {
  Transform t{mv.kind, {}, mv.src, mv.dst, {}, mv.avg_scale};
  for (int m = 0; m < 32; ++m) {
    if ((mv.mask >> m) & 1U) t.mesh_dims.push_back(m);
  }
  if (mv.flattened >= 0)
    t.flattened_mesh = mesh.flattened()[static_cast<std::size_t>(mv.flattened)].name;
  return t;
}

}  // namespace

bool Relax::visit(const Move& mv) {
  const std::int32_t ordinal = ordinal_++;
  bool added = false;
  const std::int32_t v = s_.node_of(mv.next, added);
  const auto uv = static_cast<std::size_t>(v);
  if (s_.closed[uv]) return true;  // settled: no path through u can improve it
  auto cost = s_.price(mv);
  if (!cost.ok()) {
    s_.error = std::move(cost).error();
    return false;
  }
  const std::int64_t ng = s_.g[static_cast<std::size_t>(u_)] + *cost;
  const std::int32_t ns = s_.steps[static_cast<std::size_t>(u_)] + 1;
  if (added) s_.h[uv] = s_.heuristic(mv.next);
  if (ng < s_.g[uv] || (ng == s_.g[uv] && ns < s_.steps[uv])) {
    s_.g[uv] = ng;
    s_.steps[uv] = ns;
    s_.origin[uv] = s_.origin[static_cast<std::size_t>(u_)];
    s_.edges.push_back({u_, ordinal, -1});
    s_.head[uv] = static_cast<std::int32_t>(s_.edges.size() - 1);
    s_.heap.push_back({ng + s_.h[uv], ns, v});
    std::push_heap(s_.heap.begin(), s_.heap.end(), HeapAfter{});
  } else if (ng == s_.g[uv] && ns == s_.steps[uv]) {
    s_.edges.push_back({u_, ordinal, s_.head[uv]});
    s_.head[uv] = static_cast<std::int32_t>(s_.edges.size() - 1);
  }
  return true;
}

core::Status MinCostPlanner::Impl::compute_bounds() {
  const MeshContext& mesh = space.mesh();
  for (auto& b : bound) b = {0, 0, 0};
  if (!use_heuristic) return {};
  // No step moves fewer bytes than the largest local piece of the most split state:
  // ceil(numel / world) elements (pieces of a state tile the tensor), nor has a smaller DTensor b.
  const std::int64_t world = mesh.world();
  const std::int64_t min_bytes =
      space.item_bytes() * (space.numel() / world + (space.numel() % world != 0));
  const double min_ideal = space.global_bytes() / static_cast<double>(world);
  auto cost = [&](StepKind kind, std::uint32_t dims, int flat,
                  bool divides) -> core::Result<std::int64_t> {
    const StepQuery q{kind, dims, flat, min_bytes, min_bytes, min_ideal, 1, divides};
    DTPLAN_TRY(PricedQuery p, pricer.price(q));
    return p.cost_ps;
  };
  for (int m = 0; m < space.ndim(); ++m) {
    auto& b = bound[static_cast<std::size_t>(m)];
    const std::uint32_t dim = std::uint32_t{1} << m;
    DTPLAN_TRY(std::int64_t ag, cost(StepKind::kAllGather, dim, -1, false));
    DTPLAN_TRY(std::int64_t a2a, cost(StepKind::kAllToAll, dim, -1, false));
    DTPLAN_TRY(std::int64_t ar, cost(StepKind::kAllReduce, dim, -1, false));
    DTPLAN_TRY(std::int64_t rs, cost(StepKind::kReduceScatter, dim, -1, false));
    DTPLAN_TRY(std::int64_t chunk, cost(StepKind::kLocalChunk, dim, -1, false));
    b[kClassS] = std::min(ag, a2a);
    b[kClassP] = std::min(ar, rs);
    b[kClassR] = chunk;
    if (space.has_partial_ops()) {
      DTPLAN_TRY(std::int64_t part,
                 cost(StepKind::kLocalPartition, dim, -1, space.partial_sum_only()));
      b[kClassR] = std::min(b[kClassR], part);
    }
  }
  if (!flattened) return {};
  for (const FlatMatch& match : mesh.flat_matches()) {
    std::int64_t real = 0;
    for (int m = 0; m < space.ndim(); ++m) {
      real += ((match.dims >> m) & 1U) && mesh.sizes()[static_cast<std::size_t>(m)] > 1 ? 1 : 0;
    }
    if (real == 0) continue;
    DTPLAN_TRY(std::int64_t ag, cost(StepKind::kAllGather, match.dims, match.flattened, false));
    DTPLAN_TRY(std::int64_t ar, cost(StepKind::kAllReduce, match.dims, match.flattened, false));
    DTPLAN_TRY(std::int64_t rs, cost(StepKind::kReduceScatter, match.dims, match.flattened, false));
    for (int m = 0; m < space.ndim(); ++m) {
      if (((match.dims >> m) & 1U) == 0) continue;
      auto& b = bound[static_cast<std::size_t>(m)];
      b[kClassS] = std::min(b[kClassS], ag / real);
      b[kClassP] = std::min(b[kClassP], std::min(ar, rs) / real);
    }
  }
  return {};
}

MinCostPlanner::MinCostPlanner(StepPricer& pricer) : impl_(std::make_unique<Impl>(pricer)) {}
MinCostPlanner::~MinCostPlanner() = default;

void MinCostPlanner::Impl::reset(const SearchOptions& options) {
  use_heuristic = options.heuristic == Heuristic::kAStar;
  flattened = options.flattened_moves;
  error.reset();
  index.clear();
  keys.clear();
  g.clear();
  h.clear();
  steps.clear();
  origin.clear();
  head.clear();
  closed.clear();
  edges.clear();
  heap.clear();
}

core::Status MinCostPlanner::Impl::search(std::span<const StateKey> from,
                                          const SearchOptions& options, SearchResult& out,
                                          std::span<const std::int64_t> seed_ps) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    bool added = false;
    const std::int32_t source = node_of(from[i], added);
    const auto us = static_cast<std::size_t>(source);
    const std::int64_t g0 = seed_ps.empty() ? 0 : seed_ps[i];
    if (!added && g0 >= g[us]) continue;
    g[us] = g0;
    origin[us] = static_cast<std::int32_t>(i);
    if (added) h[us] = heuristic(from[i]);
    heap.push_back({g0 + h[us], 0, source});
    std::push_heap(heap.begin(), heap.end(), HeapAfter{});
  }
  std::size_t left = found.size();
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), HeapAfter{});
    const HeapEntry e = heap.back();
    heap.pop_back();
    const auto u = static_cast<std::size_t>(e.node);
    if (closed[u] || e.f != g[u] + h[u] || e.steps != steps[u]) continue;  // stale
    closed[u] = 1;
    ++out.settled;
    if (std::int32_t* w = wanted.find(keys[u])) {
      found[static_cast<std::size_t>(*w)] = e.node;
      if (--left == 0) break;
    }
    if (keys.size() > options.max_states) {
      return core::Error::unsupported(
          "the min-cost search exceeded " + std::to_string(options.max_states) +
          " states (mesh of " + std::to_string(space.ndim()) + " dims); use the greedy planner");
    }
    space.load(keys[u]);
    Relax relax(*this, e.node);
    space.moves(relax);
    if (error) return *error;
  }
  out.reached = keys.size();
  return {};
}

core::Result<SearchResult> MinCostPlanner::plan(std::span<const std::int64_t> shape,
                                                core::DType dtype, const RedistState& src,
                                                const RedistState& dst,
                                                const SearchOptions& options) {
  Impl& s = *impl_;
  const MeshContext& mesh = s.pricer.mesh();
  DTPLAN_CHECK(s.space.setup(mesh, shape, dtype, src, std::span<const RedistState>(&dst, 1),
                             options.flattened_moves));
  s.reset(options);
  DTPLAN_CHECK(s.compute_bounds());

  const StateKey from = s.space.encode(src);
  const StateKey to = s.space.encode(dst);
  SearchResult out;
  if (from == to) return out;
  s.wanted.clear();
  s.wanted.insert(to, 0);
  s.found.assign(1, -1);
  DTPLAN_CHECK(s.search(std::span<const StateKey>(&from, 1), options, out));
  const std::int32_t source = 0;  // the first node
  const std::int32_t target = s.found[0];
  if (target < 0) {
    return core::Error::unsupported("the min-cost search found no plan from " + trace_state(src) +
                                    " to " + trace_state(dst));
  }
  out.cost_ps = s.g[static_cast<std::size_t>(target)];

  // Every optimal path ends in an optimal parent edge of the target: walk them back to collect
  // the nodes on optimal paths and their edges (parent, ordinal, child).
  std::vector<Link>& links = s.links;
  std::vector<std::int32_t>& stack = s.stack;
  std::vector<std::uint8_t>& on_path = s.on_path;
  links.clear();
  stack.assign(1, target);
  on_path.assign(s.keys.size(), 0);
  on_path[static_cast<std::size_t>(target)] = 1;
  while (!stack.empty()) {
    const std::int32_t w = stack.back();
    stack.pop_back();
    for (std::int32_t i = s.head[static_cast<std::size_t>(w)]; i >= 0;
         i = s.edges[static_cast<std::size_t>(i)].next) {
      const ParentEdge& pe = s.edges[static_cast<std::size_t>(i)];
      links.push_back({pe.parent, pe.ordinal, w});
      if (!on_path[static_cast<std::size_t>(pe.parent)]) {
        on_path[static_cast<std::size_t>(pe.parent)] = 1;
        stack.push_back(pe.parent);
      }
    }
  }
  std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) {
    return a.parent != b.parent ? a.parent < b.parent : a.ordinal < b.ordinal;
  });
  // From the source, always take the smallest ordinal: the lexicographically first optimal plan.
  for (std::int32_t u = source; u != target;) {
    auto it = std::lower_bound(links.begin(), links.end(), u,
                               [](const Link& l, std::int32_t node) { return l.parent < node; });
    if (it == links.end() || it->parent != u) {
      return core::Error::internal("min-cost search: no optimal edge leaves a state of the plan");
    }
    s.space.load(s.keys[static_cast<std::size_t>(u)]);
    Pick pick(it->ordinal);
    s.space.moves(pick);
    if (!pick.found) return core::Error::internal("min-cost search: a recorded move is missing");
    out.steps.push_back(to_transform(*pick.found, mesh));
    u = it->child;
  }
  return out;
}

std::vector<core::Result<std::int64_t>> MinCostPlanner::plan_many(
    std::span<const std::int64_t> shape, core::DType dtype, const RedistState& src,
    std::span<const RedistState> dsts, const SearchOptions& options) {
  Impl& s = *impl_;
  std::vector<core::Result<std::int64_t>> out;
  if (dsts.empty()) return out;
  std::vector<std::int32_t> slot(dsts.size(), -1);  // per target: its wanted index (-1: source)
  core::Status searched =
      s.space.setup(s.pricer.mesh(), shape, dtype, src, dsts, options.flattened_moves);
  if (searched.ok()) {
    SearchOptions dijkstra = options;
    dijkstra.heuristic = Heuristic::kNone;
    s.reset(dijkstra);
    const StateKey from = s.space.encode(src);
    s.wanted.clear();
    s.found.clear();
    for (std::size_t i = 0; i < dsts.size(); ++i) {
      const StateKey to = s.space.encode(dsts[i]);
      if (to == from) continue;
      auto [w, fresh] = s.wanted.insert(to, static_cast<std::int32_t>(s.found.size()));
      if (fresh) s.found.push_back(-1);
      slot[i] = *w;
    }
    SearchResult ignored;
    if (!s.found.empty())
      searched = s.search(std::span<const StateKey>(&from, 1), dijkstra, ignored);
  }
  // Costs of the settled targets first (plan() below reuses the search's scratch).
  std::vector<std::int64_t> cost(dsts.size(), -1);
  for (std::size_t i = 0; i < dsts.size() && searched.ok(); ++i) {
    const std::int32_t node = slot[i] < 0 ? -2 : s.found[static_cast<std::size_t>(slot[i])];
    if (node == -2) cost[i] = 0;  // already there
    if (node >= 0) cost[i] = s.g[static_cast<std::size_t>(node)];
  }
  // Targets the search did not settle (unreachable, past the state limit, a pricing error): their
  // own A* search gives exactly plan()'s answer, error included.
  out.reserve(dsts.size());
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    if (cost[i] >= 0) {
      out.emplace_back(cost[i]);
      continue;
    }
    auto one = plan(shape, dtype, src, dsts[i], options);
    if (one.ok()) {
      out.emplace_back(one->cost_ps);
    } else {
      out.emplace_back(std::move(one).error());
    }
  }
  return out;
}

core::Result<std::vector<std::int64_t>> MinCostPlanner::lower_bounds(
    std::span<const std::int64_t> shape, core::DType dtype, std::span<const RedistState> srcs,
    std::span<const RedistState> dsts, const SearchOptions& options,
    std::span<const std::int64_t> seed_ps, std::vector<std::int32_t>* origins) {
  Impl& s = *impl_;
  std::vector<std::int64_t> out(dsts.size(), 0);
  if (origins != nullptr) origins->assign(dsts.size(), -1);
  if (srcs.empty() || dsts.empty()) return out;
  // The table holds every end's placements: the targets', then the other sources'.
  std::vector<RedistState> ends(dsts.begin(), dsts.end());
  ends.insert(ends.end(), srcs.begin() + 1, srcs.end());
  DTPLAN_CHECK(
      s.space.setup(s.pricer.mesh(), shape, dtype, srcs.front(), ends, options.flattened_moves));
  SearchOptions dijkstra = options;
  dijkstra.heuristic = Heuristic::kNone;
  s.reset(dijkstra);
  std::vector<StateKey> from;
  from.reserve(srcs.size());
  for (const RedistState& src : srcs) from.push_back(s.space.encode(src));
  s.wanted.clear();
  s.found.clear();
  std::vector<std::int32_t> slot(dsts.size(), -1);
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    auto [w, fresh] =
        s.wanted.insert(s.space.encode(dsts[i]), static_cast<std::int32_t>(s.found.size()));
    if (fresh) s.found.push_back(-1);
    slot[i] = *w;
  }
  SearchResult ignored;
  DTPLAN_CHECK(s.search(from, dijkstra, ignored, seed_ps));
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    const std::int32_t node = s.found[static_cast<std::size_t>(slot[i])];
    if (node < 0) continue;
    out[i] = s.g[static_cast<std::size_t>(node)];
    if (origins != nullptr) (*origins)[i] = s.origin[static_cast<std::size_t>(node)];
  }
  return out;
}

}  // namespace dtplan::redist
