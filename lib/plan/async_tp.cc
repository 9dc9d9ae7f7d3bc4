#include "plan/async_tp.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "mesh/device_mesh.h"
#include "plan/plan_summary.h"

namespace dtplan::plan {

namespace {

// Op kinds as the lowering writes them (graph::op_name): matmuls with the left operand in slot
// 0, and views that keep the element order (their leading dims are checked by shape).
constexpr std::array<std::string_view, 3> kMatmulOps = {"mm", "bmm", "einsum"};
constexpr std::array<std::string_view, 4> kShapeViews = {"alias", "view", "reshape",
                                                         "_unsafe_view"};
// How many views deep a fused matmul may read the collective's tensor.
constexpr int kMaxViewDepth = 4;

bool is_one_of(std::string_view op, std::span<const std::string_view> kinds) {
  return std::find(kinds.begin(), kinds.end(), op) != kinds.end();
}

using Slot = std::pair<std::int32_t, std::int32_t>;  // (consumer, slot)

// What the search reads from the plan: every op's readers and the slots that are redistributed.
struct PlanView {
  const Plan& plan;
  std::int32_t tp = -1;
  std::vector<std::vector<Slot>> readers{};
  std::set<Slot> redistributed{};

  const PlanOp& op(std::int32_t i) const { return plan.ops[static_cast<std::size_t>(i)]; }
  bool in_block(std::int32_t i) const { return op(i).layer >= 0; }
  bool keeps_prefix(std::int32_t i, std::span<const std::int64_t> prefix) const {
    const auto& shape = op(i).shape;
    return shape.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), shape.begin());
  }
};

PlanView make_view(const Plan& plan, std::int32_t tp) {
  PlanView v{plan, tp};
  v.readers.resize(plan.ops.size());
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& inputs = plan.ops[i].inputs;
    for (std::size_t s = 0; s < inputs.size(); ++s) {
      v.readers[static_cast<std::size_t>(inputs[s])].emplace_back(static_cast<std::int32_t>(i),
                                                                  static_cast<std::int32_t>(s));
    }
  }
  for (const PlanRedistribution& rd : plan.redistributions) {
    v.redistributed.emplace(rd.consumer, rd.slot);
  }
  return v;
}

// The redistribution's only collective step when it is `kind` on the tp dim alone over more
// than one rank.
std::optional<std::int32_t> tp_step(const PlanView& v, const PlanRedistribution& rd,
                                    collective::Collective kind) {
  std::optional<std::int32_t> found;
  for (std::size_t s = 0; s < rd.plan.steps.size(); ++s) {
    const redist::PlanStep& step = rd.plan.steps[s];
    const auto c = redist::collective_of(step.transform.kind);
    if (!c || step.group_size <= 1) continue;
    if (found || *c != kind || step.transform.mesh_dims != std::vector<std::int32_t>{v.tp}) {
      return std::nullopt;
    }
    found = static_cast<std::int32_t>(s);
  }
  return found;
}

// The matmuls reading slot (c, s)'s value as their left operand with `prefix` leading their
// output, through shape views that keep it.
void gather_readers(const PlanView& v, Slot at, std::span<const std::int64_t> prefix, int depth,
                    std::set<std::int32_t>& out) {
  const auto [c, s] = at;
  const PlanOp& op = v.op(c);
  if (!v.in_block(c) || !v.keeps_prefix(c, prefix)) return;
  if (is_one_of(op.op, kMatmulOps)) {
    if (s == 0) out.insert(c);
    return;
  }
  if (!is_one_of(op.op, kShapeViews) || depth >= kMaxViewDepth) return;
  for (const Slot& next : v.readers[static_cast<std::size_t>(c)]) {
    if (!v.redistributed.contains(next)) gather_readers(v, next, prefix, depth + 1, out);
  }
}

// fused_all_gather_matmul: the tp all-gathers grouped by (producer, gathered dim, bytes).
std::vector<FusedMatmul> all_gather_matmuls(const PlanView& v) {
  using Key = std::tuple<std::int32_t, std::int32_t, std::int64_t>;
  std::map<Key, std::pair<std::set<std::int32_t>, std::vector<StepRef>>> groups;
  for (std::size_t r = 0; r < v.plan.redistributions.size(); ++r) {
    const PlanRedistribution& rd = v.plan.redistributions[r];
    const auto s = tp_step(v, rd, collective::Collective::kAllGather);
    if (!s) continue;
    const redist::PlanStep& step = rd.plan.steps[static_cast<std::size_t>(*s)];
    if (!step.transform.src.is_shard_like()) continue;
    const std::int32_t dim = step.transform.src.dim();
    const auto& shape = rd.plan.src.shape();
    if (dim < 0 || static_cast<std::size_t>(dim) >= shape.size()) continue;
    auto& [matmuls, steps] = groups[{rd.producer, dim, step.bytes}];
    const std::span<const std::int64_t> prefix(shape.data(), static_cast<std::size_t>(dim) + 1);
    gather_readers(v, {rd.consumer, rd.slot}, prefix, 0, matmuls);
    steps.push_back({static_cast<std::int32_t>(r), *s});
  }
  std::vector<FusedMatmul> out;
  for (auto& [key, group] : groups) {
    if (group.first.empty()) continue;
    out.push_back({.kind = FusedKind::kAllGatherMatmul,
                   .matmuls = {group.first.begin(), group.first.end()},
                   .collectives = std::move(group.second)});
  }
  return out;
}

// The matmul whose output reaches slot `at` alone, through views each read once; nullopt if
// there is none.
std::optional<std::int32_t> sole_matmul_producer(const PlanView& v, std::int32_t p, Slot at) {
  for (int depth = 0; depth <= kMaxViewDepth; ++depth) {
    const auto& readers = v.readers[static_cast<std::size_t>(p)];
    if (readers.size() != 1 || readers.front() != at || !v.in_block(p)) return std::nullopt;
    const PlanOp& op = v.op(p);
    if (is_one_of(op.op, kMatmulOps)) return p;
    if (!is_one_of(op.op, kShapeViews) || op.inputs.size() != 1 ||
        v.redistributed.contains({p, 0})) {
      return std::nullopt;
    }
    at = {p, 0};
    p = op.inputs.front();
  }
  return std::nullopt;
}

// fused_matmul_reduce_scatter: one per tp reduce-scatter of a matmul's sole output.
std::vector<FusedMatmul> matmul_reduce_scatters(const PlanView& v) {
  std::vector<FusedMatmul> out;
  for (std::size_t r = 0; r < v.plan.redistributions.size(); ++r) {
    const PlanRedistribution& rd = v.plan.redistributions[r];
    const auto s = tp_step(v, rd, collective::Collective::kReduceScatter);
    if (!s || !v.in_block(rd.consumer)) continue;
    const auto mm = sole_matmul_producer(v, rd.producer, {rd.consumer, rd.slot});
    if (!mm) continue;
    out.push_back({.kind = FusedKind::kMatmulReduceScatter,
                   .matmuls = {*mm},
                   .collectives = {{static_cast<std::int32_t>(r), *s}}});
  }
  return out;
}

// The tp dim: named "tp", more than one rank, each group on one node.
core::Result<std::int32_t> tp_dim(const Plan& plan, const cost::HardwareProfile& profile,
                                  std::string_view what) {
  const auto& names = plan.mesh.names;
  const auto it = std::find(names.begin(), names.end(), "tp");
  const std::string w(what);
  if (it == names.end() || plan.mesh.shape[static_cast<std::size_t>(it - names.begin())] <= 1) {
    return core::Error::bad_input(w +
                                  ": needs a mesh dim named tp of size > 1 (async TP fuses "
                                  "the tensor-parallel collectives)");
  }
  const auto tp = static_cast<std::int32_t>(it - names.begin());
  if (profile.node.intra_fabric != cost::IntraFabric::kNvSwitch) {
    return core::Error::unsupported(w + ": hardware '" + profile.name +
                                    "' has no NVLink (symmetric-memory peer copies need it)");
  }
  DTPLAN_TRY(mesh::DeviceMesh mesh, redist::build_described_mesh(plan.mesh));
  const layout::IntTensor groups = mesh.groups(mesh::mesh_dim(tp));
  const std::int64_t gpn = std::max<std::int64_t>(1, plan.mesh.gpus_per_node);
  for (std::int64_t g = 0; g < layout::rows(groups); ++g) {
    const auto row = layout::row(groups, g);
    for (std::int64_t rank : row) {
      if (rank / gpn != row[0] / gpn) {
        return core::Error::unsupported(
            w + ": the tp groups span nodes (" + std::to_string(gpn) +
            " GPUs per node); symmetric-memory peer copies need every tp peer on one node");
      }
    }
  }
  return tp;
}

}  // namespace

core::Result<std::vector<FusedMatmul>> find_fused_matmuls(const Plan& plan,
                                                          const cost::HardwareProfile& profile,
                                                          std::string_view what) {
  DTPLAN_TRY(const std::int32_t tp, tp_dim(plan, profile, what));
  const PlanView v = make_view(plan, tp);
  std::vector<FusedMatmul> out = all_gather_matmuls(v);
  std::set<std::int32_t> taken;
  for (const FusedMatmul& f : out) taken.insert(f.matmuls.begin(), f.matmuls.end());
  for (FusedMatmul& f : matmul_reduce_scatters(v)) {
    if (taken.insert(f.matmuls.front()).second) out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const FusedMatmul& a, const FusedMatmul& b) {
    return a.collectives.front() < b.collectives.front();
  });
  for (FusedMatmul& f : out) price_fused(f, plan, profile);
  return out;
}

core::Status apply_async_tp(Plan& plan, const cost::HardwareProfile& profile,
                            std::string_view what) {
  DTPLAN_TRY(plan.fused_matmuls, find_fused_matmuls(plan, profile, what));
  plan.training.async_tp = core::AsyncTp::kOn;
  plan.cost = cost_summary(plan);
  plan.collectives = collective_summary(plan);
  return {};
}

}  // namespace dtplan::plan
