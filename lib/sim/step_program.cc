#include "sim/step_program.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "core/min_union_find.h"
#include "cost/collective_model.h"
#include "mesh/device_mesh.h"
#include "plan/fused_matmul.h"
#include "plan/step_runs.h"
#include "redist/redist_plan.h"

namespace dtplan::sim {

std::string_view task_kind_name(TaskKind kind) {
  switch (kind) {
    case TaskKind::kCompute:
      return "compute";
    case TaskKind::kCollective:
      return "collective";
    case TaskKind::kLocal:
      return "local";
  }
  return "compute";
}

namespace {

// (microbatch, point, consumer, copy, slot, step): see the issue keys in step_program.h.
using Key =
    std::tuple<std::int64_t, std::int64_t, std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
constexpr std::int32_t kOpSub = std::numeric_limits<std::int32_t>::max();

std::string op_label(const plan::Plan& plan, std::size_t i) {
  return "ops[" + std::to_string(i) + "] '" + plan.ops[i].name + "'";
}

bool is_placeholder(const plan::PlanOp& op) {
  return op.op == "placeholder" || op.role == core::OpRole::kParam ||
         op.role == core::OpRole::kInput || op.role == core::OpRole::kTangent;
}

core::Status check_cost(double us, const std::string& what) {
  if (!std::isfinite(us) || us < 0) {
    return core::Error::bad_input(what + ": cost must be finite and >= 0, got " +
                                  std::to_string(us));
  }
  return {};
}

core::Status check_ops(const plan::Plan& plan) {
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::PlanOp& op = plan.ops[i];
    for (std::size_t s = 0; s < op.inputs.size(); ++s) {
      const std::int32_t p = op.inputs[s];
      if (p < 0 || static_cast<std::size_t>(p) >= i) {
        return core::Error::bad_input(op_label(plan, i) + ": inputs[" + std::to_string(s) +
                                      "] = " + std::to_string(p) + " is not an earlier op");
      }
    }
    DTPLAN_CHECK(check_cost(op.compute_us, op_label(plan, i) + ": compute_us"));
  }
  return {};
}

// Slot-level union-find: the groups of a dim set are the classes of "same group on one of the
// dims" (exact for the orthogonal dims of a DeviceMesh; equals the flattened mesh's groups).
class Partitions {
 public:
  Partitions(const mesh::DeviceMesh& mesh, std::vector<std::int64_t> ranks, std::int64_t gpn)
      : mesh_(mesh), ranks_(std::move(ranks)), gpus_per_node_(gpn) {}

  core::Result<std::int32_t> get(const std::vector<std::int32_t>& dims, const std::string& flat,
                                 std::vector<GroupPartition>& out) {
    auto key = std::pair(dims, flat);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    const std::size_t n = ranks_.size();
    core::MinUnionFind classes(n);
    for (std::int32_t d : dims) {
      layout::IntTensor groups = mesh_.groups(mesh::mesh_dim(d));
      const std::int64_t rows = layout::rows(groups);
      for (std::int64_t g = 0; g < rows; ++g) {
        auto row = layout::row(groups, g);
        const std::int32_t first = slot(row[0]);
        for (std::int64_t r : row) classes.unite(first, slot(r));
      }
    }
    GroupPartition part;
    part.mesh_dims = dims;
    part.flattened = flat;
    part.group_of.assign(n, -1);
    std::vector<std::vector<std::int32_t>> members;
    std::vector<std::int32_t> group_of_root(n, -1);
    for (std::size_t s = 0; s < n; ++s) {
      const auto root = static_cast<std::size_t>(classes.find(static_cast<std::int32_t>(s)));
      if (group_of_root[root] < 0) {
        group_of_root[root] = static_cast<std::int32_t>(members.size());
        members.emplace_back();
      }
      part.group_of[s] = group_of_root[root];
      members[static_cast<std::size_t>(group_of_root[root])].push_back(
          static_cast<std::int32_t>(s));
    }
    part.size = static_cast<std::int64_t>(members[0].size());
    for (const auto& m : members) {
      if (static_cast<std::int64_t>(m.size()) != part.size) {
        return core::Error::bad_input("the groups of mesh dims are not all of one size");
      }
      part.members.insert(part.members.end(), m.begin(), m.end());
      std::vector<std::int64_t> global;
      for (std::int32_t s : m) global.push_back(ranks_[static_cast<std::size_t>(s)]);
      DTPLAN_TRY(auto topo, cost::group_topology(global, gpus_per_node_, "process group"));
      part.topologies.push_back(topo);
    }
    const auto idx = static_cast<std::int32_t>(out.size());
    out.push_back(std::move(part));
    index_.emplace(std::move(key), idx);
    return idx;
  }

 private:
  std::int32_t slot(std::int64_t rank) const {
    return static_cast<std::int32_t>(std::lower_bound(ranks_.begin(), ranks_.end(), rank) -
                                     ranks_.begin());
  }
  const mesh::DeviceMesh& mesh_;
  std::vector<std::int64_t> ranks_;
  std::int64_t gpus_per_node_;
  std::map<std::pair<std::vector<std::int32_t>, std::string>, std::int32_t> index_;
};

// Blocks: maximal runs of consecutive non-placeholder ops with equal (phase, layer); -1 for
// placeholders. first_op[b] is block b's first op.
struct Blocks {
  std::vector<std::int32_t> block_of;
  std::vector<std::int32_t> first_op;
};

Blocks make_blocks(const plan::Plan& plan) {
  Blocks b;
  b.block_of.assign(plan.ops.size(), -1);
  const plan::PlanOp* last = nullptr;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::PlanOp& op = plan.ops[i];
    if (is_placeholder(op)) continue;
    if (last == nullptr || last->phase != op.phase || last->layer != op.layer) {
      b.first_op.push_back(static_cast<std::int32_t>(i));
    }
    b.block_of[i] = static_cast<std::int32_t>(b.first_op.size()) - 1;
    last = &op;
  }
  return b;
}

// Parameter-derived: a parameter, or an op with inputs that are all parameter-derived.
std::vector<bool> parameter_derived(const plan::Plan& plan) {
  std::vector<bool> derived(plan.ops.size(), false);
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::PlanOp& op = plan.ops[i];
    if (op.role == core::OpRole::kParam) {
      derived[i] = true;
    } else if (!op.inputs.empty() && !is_placeholder(op)) {
      derived[i] = std::all_of(op.inputs.begin(), op.inputs.end(), [&](std::int32_t p) {
        return derived[static_cast<std::size_t>(p)];
      });
    }
  }
  return derived;
}

struct Builder {
  const plan::Plan& plan;
  const TimelineOptions& options;
  StepProgram prog;
  std::vector<Key> keys;
  std::unique_ptr<cost::CollectiveModel> model;
  std::set<std::pair<std::int32_t, std::int32_t>> seen{};  // (consumer, slot) redistributed
  plan::FusedIndex fused{};  // async TP: ops' fused times, steps run as peer copies

  std::int32_t add(Task task, Key key) {
    prog.tasks.push_back(std::move(task));
    keys.push_back(key);
    return static_cast<std::int32_t>(prog.tasks.size()) - 1;
  }

  std::int32_t stream_for(const GroupPartition& part) {
    for (std::size_t s = 1; s < prog.streams.size(); ++s) {
      if (prog.streams[s].mesh_dims == part.mesh_dims &&
          prog.streams[s].flattened == part.flattened) {
        return static_cast<std::int32_t>(s);
      }
    }
    StreamInfo info;
    if (!part.flattened.empty()) {
      info.name = "comm:" + part.flattened;
    } else {
      const auto d = static_cast<std::size_t>(part.mesh_dims[0]);
      info.name =
          "comm:" + (d < plan.mesh.names.size() ? plan.mesh.names[d] : "dim" + std::to_string(d));
    }
    info.mesh_dims = part.mesh_dims;
    info.flattened = part.flattened;
    prog.streams.push_back(std::move(info));
    return static_cast<std::int32_t>(prog.streams.size()) - 1;
  }

  // The latency share of a collective, from the cost model on its slowest group topology.
  core::Result<double> latency_us(const Task& task, const GroupPartition& part,
                                  const std::string& label) {
    if (!model || task.alone_us == 0) return 0.0;
    DTPLAN_TRY(std::int64_t size, collective::nccl_size_from_rank_bytes(
                                      *task.collective, task.bytes, part.size, label));
    cost::CollectiveCost worst;
    bool first = true;
    for (const cost::GroupTopology& topo : part.topologies) {
      DTPLAN_TRY(cost::CollectiveCost c, model->cost(*task.collective, size, topo));
      if (first || c.time_us > worst.time_us) worst = c;
      first = false;
    }
    if (worst.time_us <= 0) return 0.0;
    return task.alone_us * std::clamp(worst.latency_us / worst.time_us, 0.0, 1.0);
  }
};

// Slot -> the slot one step further along mesh dim d (cyclic): each group of the dim lists its
// ranks in coordinate order.
std::vector<std::int32_t> dim_shift(const mesh::DeviceMesh& mesh,
                                    const std::vector<std::int64_t>& ranks, std::size_t d) {
  auto slot = [&](std::int64_t rank) {
    return static_cast<std::int32_t>(std::lower_bound(ranks.begin(), ranks.end(), rank) -
                                     ranks.begin());
  };
  std::vector<std::int32_t> shift(ranks.size());
  layout::IntTensor groups = mesh.groups(mesh::mesh_dim(static_cast<std::int32_t>(d)));
  for (std::int64_t g = 0; g < layout::rows(groups); ++g) {
    auto row = layout::row(groups, g);
    for (std::size_t k = 0; k < row.size(); ++k) {
      shift[static_cast<std::size_t>(slot(row[k]))] = slot(row[(k + 1) % row.size()]);
    }
  }
  return shift;
}

// A redistribution checked against its consumer and the mesh, as the tasks of its steps that
// run (streams resolved; deps, keys and names left to the Emitter).
core::Result<std::vector<Task>> chain_template(Builder& b, Partitions& partitions, std::size_t r) {
  const plan::Plan& plan = b.plan;
  const plan::PlanRedistribution& rd = plan.redistributions[r];
  const std::string label = "redistributions[" + std::to_string(r) + "]";
  const auto n_ops = static_cast<std::int32_t>(plan.ops.size());
  if (rd.consumer < 0 || rd.consumer >= n_ops) {
    return core::Error::bad_input(label + ": consumer " + std::to_string(rd.consumer) +
                                  " is not an op");
  }
  const plan::PlanOp& consumer = plan.ops[static_cast<std::size_t>(rd.consumer)];
  if (rd.slot < 0 || static_cast<std::size_t>(rd.slot) >= consumer.inputs.size() ||
      consumer.inputs[static_cast<std::size_t>(rd.slot)] != rd.producer) {
    return core::Error::bad_input(label + ": slot " + std::to_string(rd.slot) + " of '" +
                                  consumer.name + "' is not fed by op " +
                                  std::to_string(rd.producer));
  }
  if (!b.seen.emplace(rd.consumer, rd.slot).second) {
    return core::Error::bad_input(label + ": a second redistribution for slot " +
                                  std::to_string(rd.slot) + " of '" + consumer.name + "'");
  }
  std::vector<Task> chain;
  for (std::size_t s = 0; s < rd.plan.steps.size(); ++s) {
    const redist::PlanStep& step = rd.plan.steps[s];
    const std::string slabel = label + ".steps[" + std::to_string(s) + "]";
    DTPLAN_CHECK(check_cost(step.cost_us, slabel));
    Task t;
    t.op = rd.consumer;
    t.redistribution = static_cast<std::int32_t>(r);
    t.slot = rd.slot;
    t.step = static_cast<std::int32_t>(s);
    t.alone_us = step.cost_us;
    t.bytes = step.bytes;
    t.collective = redist::collective_of(step.transform.kind);
    t.name = "." + std::to_string(s) + ":" +
             std::string(t.collective ? collective::name(*t.collective)
                                      : redist::step_kind_name(step.transform.kind));
    if (t.collective) {
      std::vector<std::int32_t> dims = step.transform.mesh_dims;
      const auto ndim = static_cast<std::int32_t>(plan.mesh.shape.size());
      if (dims.empty() || !std::is_sorted(dims.begin(), dims.end()) ||
          std::adjacent_find(dims.begin(), dims.end()) != dims.end() || dims.front() < 0 ||
          dims.back() >= ndim) {
        return core::Error::bad_input(slabel +
                                      ": mesh dims must be distinct, ascending and in [0, " +
                                      std::to_string(ndim) + ")");
      }
      const std::string& flat = step.transform.flattened_mesh;
      if (!flat.empty()) {
        auto it = std::find_if(plan.mesh.flattened.begin(), plan.mesh.flattened.end(),
                               [&](const redist::FlattenedMeshInfo& f) { return f.name == flat; });
        if (it == plan.mesh.flattened.end() || it->mesh_dims != dims) {
          return core::Error::bad_input(slabel + ": the mesh has no flattened mesh '" + flat +
                                        "' of these mesh dims");
        }
      }
      auto part_idx = partitions.get(dims, flat, b.prog.partitions);
      if (!part_idx.ok()) return part_idx.error().with_context(slabel);
      const GroupPartition& part = b.prog.partitions[static_cast<std::size_t>(*part_idx)];
      if (step.group_size != part.size) {
        return core::Error::bad_input(slabel + ": group_size " + std::to_string(step.group_size) +
                                      " but its mesh dims make groups of " +
                                      std::to_string(part.size));
      }
      if (part.size == 1) continue;         // skipped at runtime
      if (b.fused.absorbs(r, s)) continue;  // peer copies inside its fused matmul's time
      t.kind = TaskKind::kCollective;
      t.partition = *part_idx;
      t.stream = b.stream_for(part);
      DTPLAN_TRY(t.latency_us, b.latency_us(t, part, slabel));
    } else {
      t.kind = TaskKind::kLocal;
      t.stream = -1;  // resolved below
    }
    chain.push_back(std::move(t));
  }
  // Local steps: the stream of the next collective, else of the previous one; a chain of local
  // steps alone keeps -1 (the compute stream, just before its consumer).
  std::int32_t next = -1;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (it->kind == TaskKind::kCollective) next = it->stream;
    if (it->kind == TaskKind::kLocal) it->stream = next;
  }
  std::int32_t prev = -1;
  for (Task& t : chain) {
    if (t.kind == TaskKind::kCollective) prev = t.stream;
    if (t.stream < 0) t.stream = prev;
  }
  return chain;
}

// Per op: for a recomputed op, its recompute point, the op after which it is issued: the op
// just before the first backward op of its layer, or earlier where a backward op or another
// recomputation reads it sooner; -1 for other ops.
std::vector<std::int32_t> recompute_points(const plan::Plan& plan, const Blocks& blocks) {
  const auto n = static_cast<std::int32_t>(plan.ops.size());
  auto recomputed = [&](std::int32_t i) {
    return plan.ops[static_cast<std::size_t>(i)].schedule == plan::OpSchedule::kRecompute;
  };
  std::map<std::int32_t, std::int32_t> backward_start;  // layer -> first backward op
  for (std::int32_t i = 0; i < n; ++i) {
    const plan::PlanOp& op = plan.ops[static_cast<std::size_t>(i)];
    if (op.phase == plan::Phase::kBackward && blocks.block_of[static_cast<std::size_t>(i)] >= 0) {
      backward_start.emplace(op.layer, i);
    }
  }
  std::vector<std::int32_t> point(plan.ops.size(), -1);
  for (std::int32_t i = 0; i < n; ++i) {
    if (!recomputed(i)) continue;
    auto it = backward_start.find(plan.ops[static_cast<std::size_t>(i)].layer);
    point[static_cast<std::size_t>(i)] = it == backward_start.end() ? n - 1 : it->second - 1;
  }
  // Readers: a backward op reads the recomputed value; a recomputation reads its inputs'.
  for (std::int32_t j = n - 1; j >= 0; --j) {
    const plan::PlanOp& op = plan.ops[static_cast<std::size_t>(j)];
    const bool backward = op.phase == plan::Phase::kBackward;
    if (!backward && !recomputed(j)) continue;
    const std::int32_t by = backward ? j - 1 : point[static_cast<std::size_t>(j)];
    for (std::int32_t p : op.inputs) {
      if (!recomputed(p)) continue;
      auto& at = point[static_cast<std::size_t>(p)];
      at = std::max(p, std::min(at, by));
    }
  }
  return point;
}

// Issues every microbatch's tasks: ops in plan order, each recomputed op again after its
// recompute point, and every redistribution's chain for each run (plan/step_runs.h).
struct Emitter {
  const plan::Plan& plan;
  const TimelineOptions& options;
  const Blocks& blocks;
  const std::vector<bool>& derived;
  const std::vector<std::vector<Task>>& chains;
  Builder& b;
  std::vector<std::int32_t> point;                   // per op: recompute point, or -1
  std::vector<std::vector<std::int32_t>> op_task{};  // [copy][op] of the current microbatch
  std::vector<std::int32_t> first_op_task{};         // [op]: the first microbatch's forward runs

  // The prefix of the names of microbatch m's tasks ("" with one microbatch).
  [[nodiscard]] std::string prefix(std::int64_t m) const {
    return plan.training.grad_accum == 1 ? "" : "mb" + std::to_string(m) + ".";
  }

  // The task holding op p's value for a reader: its recomputation for a backward reader or a
  // recomputing one, else its forward run; and the op after which that value exists.
  [[nodiscard]] std::pair<std::int32_t, std::int32_t> value_of(std::int32_t p, bool late) const {
    const auto pi = static_cast<std::size_t>(p);
    if (late && point[pi] >= 0) return {op_task[1][pi], point[pi]};
    return {op_task[0][pi], p};
  }

  void emit_microbatch(std::int64_t m) {
    op_task.assign(2, std::vector<std::int32_t>(plan.ops.size(), -1));
    emit_ops(m);
    if (m == 0) first_op_task = op_task[0];
    for (std::size_t r = 0; r < plan.redistributions.size(); ++r) {
      const plan::PlanRedistribution& rd = plan.redistributions[r];
      const plan::PlanOp& producer = plan.ops[static_cast<std::size_t>(rd.producer)];
      const plan::PlanOp& consumer = plan.ops[static_cast<std::size_t>(rd.consumer)];
      const bool last = m + 1 == plan.training.grad_accum;
      if (!last && plan::reduces_once(producer.schedule, consumer.schedule, plan.training))
        continue;
      for (std::int32_t copy = 0; copy < 2; ++copy) {
        if (op_task[static_cast<std::size_t>(copy)][static_cast<std::size_t>(rd.consumer)] >= 0) {
          emit_chain(m, r, copy);
        }
      }
    }
  }

  // Microbatch m's op tasks and their recomputations, each waiting for its inputs' values.
  void emit_ops(std::int64_t m) {
    const auto n = static_cast<std::int32_t>(plan.ops.size());
    for (std::int32_t i = 0; i < n; ++i) {
      const plan::PlanOp& op = plan.ops[static_cast<std::size_t>(i)];
      for (std::int32_t copy = 0; copy < 2; ++copy) {
        const std::int32_t at = copy == 0 ? i : point[static_cast<std::size_t>(i)];
        if (copy == 1 && at < 0) continue;
        Task t;
        t.name = prefix(m) + op.name + (copy == 1 ? ":recompute" : "");
        t.op = i;
        t.alone_us = b.fused.op_us[static_cast<std::size_t>(i)];
        op_task[static_cast<std::size_t>(copy)][static_cast<std::size_t>(i)] =
            b.add(std::move(t), Key{m, 2 * std::int64_t{at} + copy, i, copy, kOpSub, 0});
      }
    }
    // Slot deps: the producer's value unless a chain intervenes.
    for (std::int32_t i = 0; i < n; ++i) {
      const plan::PlanOp& op = plan.ops[static_cast<std::size_t>(i)];
      for (std::int32_t copy = 0; copy < 2; ++copy) {
        const std::int32_t task =
            op_task[static_cast<std::size_t>(copy)][static_cast<std::size_t>(i)];
        if (task < 0) continue;
        const bool late = copy == 1 || op.phase == plan::Phase::kBackward;
        std::vector<std::int32_t> deps;
        for (std::int32_t p : op.inputs) deps.push_back(value_of(p, late).first);
        b.prog.tasks[static_cast<std::size_t>(task)].deps = std::move(deps);
      }
    }
  }

  // One run of redistribution r's chain in microbatch m, for the consumer's forward run (copy
  // 0) or its recomputation (copy 1).
  void emit_chain(std::int64_t m, std::size_t r, std::int32_t copy) {
    const std::vector<Task>& chain = chains[r];
    if (chain.empty()) return;
    const plan::PlanRedistribution& rd = plan.redistributions[r];
    const auto c = static_cast<std::size_t>(rd.consumer);
    const bool late = copy == 1 || plan.ops[c].phase == plan::Phase::kBackward;
    const auto [producer_task, ready] = value_of(rd.producer, late);
    const bool local_only = chain.front().stream < 0;
    // When the chain is issued: after its value exists; a recomputation's chain not before its
    // recompute point; a prefetchable chain after the gate of the block it runs in.
    std::int32_t after = ready;
    if (copy == 1) after = std::max(after, point[c]);
    std::int32_t gate = -1;
    const bool prefetched = !local_only && derived[static_cast<std::size_t>(rd.producer)];
    if (prefetched && options.prefetch_depth >= 0) {
      // The block the consumer runs in: a recomputation's is its layer's first backward block.
      const std::size_t runs_at = copy == 1 ? static_cast<std::size_t>(point[c]) + 1 : c;
      const std::int32_t block = blocks.block_of[runs_at];
      const std::int64_t target = std::int64_t{block} - options.prefetch_depth;
      if (block >= 0 && target >= 0) {
        const std::int32_t g = blocks.first_op[static_cast<std::size_t>(target)] - 1;
        after = ready;  // a prefetch may run ahead of the recompute point
        if (g > after) after = gate = g;
      }
    }
    const std::int32_t consumer_task = op_task[static_cast<std::size_t>(copy)][c];
    std::int32_t prev_task = producer_task;
    for (const Task& step : chain) {
      Task t = step;
      t.name = prefix(m) + plan.ops[c].name + (copy == 1 ? ":recompute" : "") + "[" +
               std::to_string(rd.slot) + "]" + step.name;
      if (local_only) t.stream = 0;
      t.prefetched = prefetched;
      t.deps = {prev_task};
      if (prev_task == producer_task && gate >= 0) {
        t.gate = op_task[0][static_cast<std::size_t>(gate)];
        t.deps.push_back(t.gate);
      }
      const std::int64_t issue = local_only
                                     ? 2 * std::int64_t{copy == 1 ? point[c] : rd.consumer} + copy
                                     : 2 * std::int64_t{after} + 1;
      prev_task = b.add(std::move(t), Key{m, issue, rd.consumer, copy, rd.slot, step.step});
    }
    b.prog.tasks[static_cast<std::size_t>(consumer_task)].deps[static_cast<std::size_t>(rd.slot)] =
        prev_task;
  }
};

}  // namespace

core::Result<StepProgram> build_step_program(const plan::Plan& plan,
                                             const TimelineOptions& options) {
  DTPLAN_CHECK(check_ops(plan));
  if (plan.training.grad_accum < 1) {
    return core::Error::bad_input("training.grad_accum: must be >= 1, got " +
                                  std::to_string(plan.training.grad_accum));
  }
  DTPLAN_TRY(mesh::DeviceMesh mesh, redist::build_described_mesh(plan.mesh));
  if (plan.mesh.gpus_per_node < 1) {
    return core::Error::bad_input("mesh.gpus_per_node: must be >= 1, got " +
                                  std::to_string(plan.mesh.gpus_per_node));
  }
  Builder b{plan, options, {}, {}, nullptr};
  b.fused = plan::index_fused(plan);
  if (options.hardware) {
    b.model = cost::make_collective_model(*options.hardware, {.kind = cost::ModelKind::kNccl});
  }
  const auto rank_map = mesh.rank_map();
  b.prog.ranks.assign(rank_map.begin(), rank_map.end());
  std::sort(b.prog.ranks.begin(), b.prog.ranks.end());
  b.prog.gpus_per_node = plan.mesh.gpus_per_node;
  b.prog.streams.push_back({"compute", {}, ""});
  Partitions partitions(mesh, b.prog.ranks, plan.mesh.gpus_per_node);
  for (std::size_t d = 0; d < plan.mesh.shape.size(); ++d) {
    b.prog.shifts.push_back(dim_shift(mesh, b.prog.ranks, d));
  }

  const Blocks blocks = make_blocks(plan);
  const std::vector<bool> derived = parameter_derived(plan);
  std::vector<std::vector<Task>> chains(plan.redistributions.size());
  for (std::size_t r = 0; r < plan.redistributions.size(); ++r) {
    DTPLAN_TRY(chains[r], chain_template(b, partitions, r));
  }
  Emitter e{plan, options, blocks, derived, chains, b, recompute_points(plan, blocks)};
  for (std::int64_t m = 0; m < plan.training.grad_accum; ++m) e.emit_microbatch(m);

  // Issue order: sort by key and renumber every reference.
  const std::size_t n = b.prog.tasks.size();
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t x, std::int32_t y) {
    return b.keys[static_cast<std::size_t>(x)] < b.keys[static_cast<std::size_t>(y)];
  });
  std::vector<std::int32_t> renum(n);
  for (std::size_t k = 0; k < n; ++k)
    renum[static_cast<std::size_t>(order[k])] = static_cast<std::int32_t>(k);
  std::vector<Task> sorted;
  sorted.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    Task t = std::move(b.prog.tasks[static_cast<std::size_t>(order[k])]);
    for (std::int32_t& d : t.deps) d = renum[static_cast<std::size_t>(d)];
    if (t.gate >= 0) t.gate = renum[static_cast<std::size_t>(t.gate)];
    sorted.push_back(std::move(t));
  }
  b.prog.tasks = std::move(sorted);
  b.prog.op_task.assign(plan.ops.size(), -1);
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    b.prog.op_task[i] = renum[static_cast<std::size_t>(e.first_op_task[i])];
  }

  // Streams in a fixed order: compute, single mesh dims ascending, then flattened meshes by name.
  std::vector<std::int32_t> sorder(b.prog.streams.size());
  std::iota(sorder.begin(), sorder.end(), 0);
  std::sort(sorder.begin() + 1, sorder.end(), [&](std::int32_t x, std::int32_t y) {
    const StreamInfo& a = b.prog.streams[static_cast<std::size_t>(x)];
    const StreamInfo& c = b.prog.streams[static_cast<std::size_t>(y)];
    return std::tuple(!a.flattened.empty(), a.flattened, a.mesh_dims) <
           std::tuple(!c.flattened.empty(), c.flattened, c.mesh_dims);
  });
  std::vector<std::int32_t> srenum(sorder.size());
  std::vector<StreamInfo> streams;
  for (std::size_t k = 0; k < sorder.size(); ++k) {
    srenum[static_cast<std::size_t>(sorder[k])] = static_cast<std::int32_t>(k);
    streams.push_back(std::move(b.prog.streams[static_cast<std::size_t>(sorder[k])]));
  }
  b.prog.streams = std::move(streams);
  for (Task& t : b.prog.tasks) t.stream = srenum[static_cast<std::size_t>(t.stream)];
  return std::move(b.prog);
}

}  // namespace dtplan::sim
