#include "strategy/fuse_allgathers.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "core/strings.h"
#include "plan/plan_summary.h"

namespace dtplan::strategy {

namespace {

using graph::OpKind;

bool is_view_only(OpKind op) {
  switch (op) {
    case OpKind::kAlias:
    case OpKind::kView:
    case OpKind::kReshape:
    case OpKind::kUnsafeView:
    case OpKind::kPermute:
    case OpKind::kTranspose:
    case OpKind::kT:
    case OpKind::kExpand:
    case OpKind::kSqueeze:
    case OpKind::kUnsqueeze:
      return true;
    default:
      return false;
  }
}

// Composes `perm` (output dim i reads input dim perm[i]) with the view `node`; nullopt when the
// view is not a pure permutation or an identity reshape.
std::optional<std::vector<std::int64_t>> compose(std::vector<std::int64_t> perm,
                                                 const graph::Node& node,
                                                 const graph::Shape& in_shape) {
  const std::size_t rank = perm.size();
  std::vector<std::int64_t> step(rank);
  std::iota(step.begin(), step.end(), 0);
  switch (node.op) {
    case OpKind::kPermute: {
      auto dims = node.attrs.get_ints("dims");
      if (!dims.ok() || dims->size() != rank) return std::nullopt;
      for (std::size_t i = 0; i < rank; ++i) {
        std::int64_t d = (*dims)[i] < 0 ? (*dims)[i] + static_cast<std::int64_t>(rank) : (*dims)[i];
        if (d < 0 || d >= static_cast<std::int64_t>(rank)) return std::nullopt;
        step[i] = d;
      }
      break;
    }
    case OpKind::kTranspose: {
      auto d0 = node.attrs.get_int("dim0");
      auto d1 = node.attrs.get_int("dim1");
      if (!d0.ok() || !d1.ok()) return std::nullopt;
      const auto r = static_cast<std::int64_t>(rank);
      const std::int64_t a = *d0 < 0 ? *d0 + r : *d0;
      const std::int64_t b = *d1 < 0 ? *d1 + r : *d1;
      if (a < 0 || a >= r || b < 0 || b >= r) return std::nullopt;
      std::swap(step[static_cast<std::size_t>(a)], step[static_cast<std::size_t>(b)]);
      break;
    }
    case OpKind::kT:
      if (rank == 2) std::swap(step[0], step[1]);
      break;
    default:
      if (node.outputs.empty() || node.outputs[0].shape != in_shape) return std::nullopt;
      break;
  }
  std::vector<std::int64_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) out[i] = perm[static_cast<std::size_t>(step[i])];
  return out;
}

std::string dims_label(const plan::Plan& plan, const std::vector<std::int32_t>& dims) {
  std::vector<std::string> names;
  for (std::int32_t d : dims) {
    names.push_back(plan.mesh.names.empty() ? std::to_string(d)
                                            : plan.mesh.names[static_cast<std::size_t>(d)]);
  }
  return core::join(names, ",");
}

std::uint32_t mask_of(const std::vector<std::int32_t>& dims) {
  std::uint32_t m = 0;
  for (std::int32_t d : dims) m |= 1U << static_cast<unsigned>(d);
  return m;
}

struct Chain {
  std::size_t r1 = 0;                // redistribution index
  std::vector<std::int32_t> ops;     // q1 .. qk
  std::vector<std::int32_t> d1, d2;  // mesh dims
};

class Fuser {
 public:
  Fuser(plan::Plan& plan, const graph::Graph& graph, EdgeCoster& coster)
      : plan_(plan), graph_(graph), coster_(coster) {
    uses_.assign(plan.ops.size(), 0);
    for (const plan::PlanOp& op : plan.ops) {
      for (std::int32_t in : op.inputs) ++uses_[static_cast<std::size_t>(in)];
    }
    // Values the graph returns (its output node is not a plan op) have one more use.
    if (auto out = graph::find_output_node(graph)) {
      std::map<std::string_view, std::int32_t> index;
      for (std::size_t i = 0; i < plan.ops.size(); ++i) {
        index.emplace(plan.ops[i].name, static_cast<std::int32_t>(i));
      }
      for (graph::NodeId in : graph.node(*out).inputs) {
        if (auto it = index.find(graph.node(in).name); it != index.end()) ++uses_[it->second];
      }
    }
  }

  core::Result<FuseResult> run() {
    drop_.assign(plan_.redistributions.size(), 0);
    for (std::size_t k = 0; k < plan_.redistributions.size(); ++k) {
      if (drop_[k] == 0) DTPLAN_CHECK(try_fuse(k));
    }
    std::vector<plan::PlanRedistribution> kept;
    for (std::size_t k = 0; k < plan_.redistributions.size(); ++k) {
      if (drop_[k] == 0) kept.push_back(std::move(plan_.redistributions[k]));
    }
    plan_.redistributions = std::move(kept);
    plan::summarize(plan_, result_.warnings);
    return std::move(result_);
  }

 private:
  [[nodiscard]] const graph::Node* node_of(std::int32_t op) const {
    auto id = graph_.find(plan_.ops[static_cast<std::size_t>(op)].name);
    return id ? &graph_.node(*id) : nullptr;
  }

  [[nodiscard]] std::optional<std::size_t> redist_into(std::int32_t consumer) const {
    for (std::size_t k = 0; k < plan_.redistributions.size(); ++k) {
      const auto& r = plan_.redistributions[k];
      if (r.consumer == consumer && r.slot == 0 && drop_[k] == 0) return k;
    }
    return std::nullopt;
  }

  // The chain ending at R2 = redistributions[k], if the structural conditions hold.
  [[nodiscard]] std::optional<Chain> find_chain(std::size_t k) const {
    const plan::PlanRedistribution& r2 = plan_.redistributions[k];
    const redist::PlanStep& first = r2.plan.steps.front();
    if (first.transform.kind != redist::StepKind::kAllGather) return std::nullopt;
    Chain c;
    std::int32_t x = r2.producer;
    std::optional<std::size_t> r1;
    while (!r1) {
      const plan::PlanOp& op = plan_.ops[static_cast<std::size_t>(x)];
      const graph::Node* node = node_of(x);
      if (node == nullptr || !is_view_only(node->op) || op.inputs.size() != 1 ||
          uses_[static_cast<std::size_t>(x)] != 1) {
        return std::nullopt;
      }
      c.ops.insert(c.ops.begin(), x);
      r1 = redist_into(x);
      x = op.inputs[0];
    }
    const redist::PlanStep& last = plan_.redistributions[*r1].plan.steps.back();
    if (last.transform.kind != redist::StepKind::kAllGather) return std::nullopt;
    c.r1 = *r1;
    c.d1 = last.transform.mesh_dims;
    c.d2 = first.transform.mesh_dims;
    if ((mask_of(c.d1) & mask_of(c.d2)) != 0) return std::nullopt;
    if (last.transform.src.dim() != first.transform.src.dim()) return std::nullopt;
    // Identity: the permutations compose to the identity, reshapes keep the shape.
    const placement::TensorSpec& start = plan_.redistributions[c.r1].plan.dst;
    std::vector<std::int64_t> perm(start.shape().size());
    std::iota(perm.begin(), perm.end(), 0);
    graph::Shape shape = start.shape();
    for (std::int32_t q : c.ops) {
      auto next = compose(perm, *node_of(q), shape);
      if (!next) return std::nullopt;
      perm = std::move(*next);
      shape = plan_.ops[static_cast<std::size_t>(q)].shape;
    }
    for (std::size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] != static_cast<std::int64_t>(i)) return std::nullopt;
    }
    if (shape != start.shape() || r2.plan.src.placements() != start.placements()) {
      return std::nullopt;
    }
    return c;
  }

  core::Status try_fuse(std::size_t k) {
    auto chain = find_chain(k);
    if (!chain) return {};
    plan::PlanRedistribution& r1 = plan_.redistributions[chain->r1];
    plan::PlanRedistribution& r2 = plan_.redistributions[k];
    Placements gathered = r2.plan.src.placements();
    for (std::int32_t d : chain->d2) gathered[static_cast<std::size_t>(d)] = {};
    graph::TensorMeta meta{r2.plan.src.shape(), r2.plan.src.dtype()};
    DTPLAN_TRY(placement::TensorSpec mid, coster_.spec(meta, gathered));
    const redist::PlanOptions options{redist::PlannerKind::kAuto, true};
    DTPLAN_TRY(auto new1, coster_.planner().plan(r1.plan.src, mid, options));
    if (new1->comm_counts.total() > r1.plan.comm_counts.total()) {
      std::vector<std::int32_t> dims = chain->d1;
      dims.insert(dims.end(), chain->d2.begin(), chain->d2.end());
      std::sort(dims.begin(), dims.end());
      if (coster_.planner().mesh().find_flattened(mask_of(dims)) < 0) {
        std::vector<std::string> names;
        for (std::int32_t q : chain->ops)
          names.push_back("'" + plan_.ops[static_cast<std::size_t>(q)].name + "'");
        result_.warnings.push_back(
            {redist::WarningReason::kNoFlattenedMesh, dims,
             "chained all_gathers on mesh dims " + dims_label(plan_, chain->d1) + " and " +
                 dims_label(plan_, chain->d2) + " through " + core::join(names, ", ") +
                 " could run as one all_gather on a flattened mesh over " +
                 dims_label(plan_, dims) + ", but the mesh has none; flatten those dims"});
      }
      return {};
    }
    if (mid != r2.plan.dst) {
      DTPLAN_TRY(auto new2, coster_.planner().plan(mid, r2.plan.dst, options));
      r2.plan = *new2;
    } else {
      drop_[k] = 1;
    }
    r1.plan = *new1;
    Placements prev = gathered;
    for (std::int32_t q : chain->ops) {
      plan::PlanOp& op = plan_.ops[static_cast<std::size_t>(q)];
      for (std::int32_t d : chain->d2) op.placements[static_cast<std::size_t>(d)] = {};
      Strategy s;
      s.outputs = {op.placements};
      s.inputs = {prev};
      op.strategy = format_strategy(s);
      prev = op.placements;
    }
    ++result_.fused;
    return {};
  }

  plan::Plan& plan_;
  const graph::Graph& graph_;
  EdgeCoster& coster_;
  std::vector<std::int32_t> uses_;
  std::vector<char> drop_;  // per redistribution: fused away
  FuseResult result_;
};

}  // namespace

core::Result<FuseResult> fuse_chained_allgathers(plan::Plan& plan, const graph::Graph& graph,
                                                 EdgeCoster& coster) {
  return Fuser(plan, graph, coster).run();
}

}  // namespace dtplan::strategy
