#include "sim/fake_process_group.h"

#include <cstring>
#include <string>

#include "core/checked.h"
#include "cost/group_topology.h"
#include "sim/reduce_engine.h"

namespace dtplan::sim {

namespace {

using collective::Collective;

// One group of a call, validated and planned before anything moves.
struct PreparedGroup {
  const Group* group = nullptr;
  TraceEntry entry;
  Shape out_shape;
  std::vector<Tensor> outputs;  // data mode, collectives with new outputs
};

bool allocates_outputs(Collective c) {
  return c == Collective::kAllGather || c == Collective::kReduceScatter ||
         c == Collective::kAllToAll;
}

void copy_bytes(std::byte* dst, const std::byte* src, std::int64_t bytes) {
  if (bytes > 0 && dst != src) std::memcpy(dst, src, static_cast<std::size_t>(bytes));
}

std::vector<Tensor*> member_tensors(const Group& group, RankTensors& tensors) {
  std::vector<Tensor*> out;
  out.reserve(group.size());
  for (std::int64_t rank : group) out.push_back(&tensors.at(rank));
  return out;
}

std::vector<const std::byte*> input_pointers(const std::vector<Tensor*>& members) {
  std::vector<const std::byte*> out;
  out.reserve(members.size());
  for (const Tensor* t : members) out.push_back(t->data());
  return out;
}

// Output i of all_gather: the inputs of group ranks 0..n-1 one after the other.
void run_all_gather(const std::vector<Tensor*>& in, std::vector<Tensor>& out) {
  const std::int64_t bytes = in[0]->nbytes();
  for (Tensor& o : out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      copy_bytes(o.data() + static_cast<std::int64_t>(i) * bytes, in[i]->data(), bytes);
    }
  }
}

// Output j of all_to_all: block j of every input i, at block position i.
void run_all_to_all(const std::vector<Tensor*>& in, std::vector<Tensor>& out) {
  const auto n = static_cast<std::int64_t>(in.size());
  const std::int64_t block = in[0]->nbytes() / n;
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < n; ++i) {
      copy_bytes(out[static_cast<std::size_t>(j)].data() + i * block,
                 in[static_cast<std::size_t>(i)]->data() + j * block, block);
    }
  }
}

void run_reduce_scatter(const PreparedGroup& p, const GroupLayout& layout,
                        const std::vector<Tensor*>& in, std::vector<Tensor>& out) {
  const RealView real = real_view(in[0]->dtype());  // complex: pairs of reals
  const std::int64_t block = out[0].numel() * real.lanes;
  const std::int64_t es = core::dtype_bytes(real.dtype);
  const auto segments = reduce_scatter_segments(p.entry.order, layout, block);
  const auto inputs = input_pointers(in);
  run_reduction(real.dtype, *p.entry.op, segments, inputs,
                [&](const ReductionSegment& seg, std::int64_t offset, const std::byte* data,
                    std::int64_t count) {
                  std::byte* dst = out[static_cast<std::size_t>(seg.owner)].data();
                  copy_bytes(dst + (offset - seg.owner * block) * es, data, count * es);
                });
}

// In place: every member's tensor becomes the reduction.
void run_all_reduce(const PreparedGroup& p, const GroupLayout& layout,
                    const std::vector<Tensor*>& in) {
  const RealView real = real_view(in[0]->dtype());  // complex: pairs of reals
  const std::int64_t es = core::dtype_bytes(real.dtype);
  const auto segments = all_reduce_segments(p.entry.order, layout, in[0]->numel() * real.lanes);
  const auto inputs = input_pointers(in);
  run_reduction(
      real.dtype, *p.entry.op, segments, inputs,
      [&](const ReductionSegment&, std::int64_t offset, const std::byte* data, std::int64_t count) {
        for (Tensor* t : in) copy_bytes(t->data() + offset * es, data, count * es);
      });
}

core::Error context_error(const CollectiveCall& call, const Group& group, const core::Error& e) {
  return e.with_context(describe(call) + ": group " + group_string(group));
}

// Checks one group's tensors (present, alike, with data in data mode, reducible) and plans it.
core::Result<PreparedGroup> prepare_group(const FakeProcessGroup& pg, const CollectiveCall& call,
                                          const Group& group, const RankTensors& tensors,
                                          std::int64_t call_index) {
  const bool data = pg.options().mode == DataMode::kData;
  const bool reduces = collective::facts(call.collective).reduces;
  const auto n = static_cast<std::int64_t>(group.size());
  auto bad = [&](const std::string& message) {
    return core::Error::bad_input(describe(call) + ": group " + group_string(group) + ": " +
                                  message);
  };
  for (std::int64_t rank : group) {
    if (!tensors.has(rank)) return bad("rank " + std::to_string(rank) + " has no tensor");
  }
  const Tensor& first = tensors.at(group[0]);
  for (std::int64_t rank : group) {
    const Tensor& t = tensors.at(rank);
    if (t.dtype() != first.dtype() || t.shape() != first.shape()) {
      return bad("rank " + std::to_string(rank) + " has " + describe(t) + ", rank " +
                 std::to_string(group[0]) + " has " + describe(first));
    }
    if (data && !t.has_data()) {
      return bad("rank " + std::to_string(rank) + " has a shape-only tensor in data mode");
    }
  }
  // Shape-only (cost) mode reduces nothing, so any dtype prices; data mode needs a reduction
  // kernel (a context-parallel plan reduce-scatters a complex RoPE gradient: pairs of f32).
  if (reduces && data) DTPLAN_CHECK(check_reducible(first.dtype(), call.op, describe(call)));
  PreparedGroup p;
  p.group = &group;
  auto out_shape =
      output_shape(call.collective, n, first.shape(), "rank " + std::to_string(group[0]));
  if (!out_shape.ok()) return context_error(call, group, out_shape.error());
  p.out_shape = std::move(out_shape).value();
  auto out_numel = checked_numel(p.out_shape, first.dtype(), "output");
  if (!out_numel.ok()) return context_error(call, group, out_numel.error());
  const std::int64_t rank_bytes = call.collective == Collective::kReduceScatter
                                      ? out_numel.value() * first.element_bytes()
                                      : first.nbytes();
  auto nccl_bytes = collective::nccl_size_from_rank_bytes(call.collective, rank_bytes, n, "S");
  if (!nccl_bytes.ok()) return context_error(call, group, nccl_bytes.error());
  auto plan = pg.plan_group(call.collective, group, nccl_bytes.value());
  if (!plan.ok()) return context_error(call, group, plan.error());
  p.entry.call = call_index;
  p.entry.collective = call.collective;
  p.entry.ranks = group;
  p.entry.dtype = first.dtype();
  p.entry.rank_bytes = rank_bytes;
  p.entry.nccl_bytes = nccl_bytes.value();
  if (reduces) p.entry.op = call.op;
  if (call.collective == Collective::kBroadcast) p.entry.root = call.root;
  p.entry.algorithm = plan->algorithm;
  p.entry.order = plan->order;
  return p;
}

// Runs one prepared group on the data and installs the outputs.
void move_data(const CollectiveCall& call, PreparedGroup& p, std::int64_t gpus_per_node,
               RankTensors& tensors) {
  const Group& group = *p.group;
  if (group.size() == 1) return;  // every collective is the identity on one rank
  std::vector<Tensor*> members = member_tensors(group, tensors);
  switch (call.collective) {
    case Collective::kAllGather:
      run_all_gather(members, p.outputs);
      break;
    case Collective::kAllToAll:
      run_all_to_all(members, p.outputs);
      break;
    case Collective::kReduceScatter:
    case Collective::kAllReduce: {
      if (p.entry.order == ReductionOrder::kNone) break;  // nothing to reduce (0 bytes)
      const GroupLayout layout = group_layout(group, gpus_per_node, "group").value();
      if (call.collective == Collective::kAllReduce) {
        run_all_reduce(p, layout, members);
      } else {
        run_reduce_scatter(p, layout, members, p.outputs);
      }
      break;
    }
    case Collective::kBroadcast: {
      const Tensor* root = members[static_cast<std::size_t>(call.root)];
      for (Tensor* t : members) copy_bytes(t->data(), root->data(), root->nbytes());
      break;
    }
    default:
      break;  // validate_call admits nothing else
  }
  if (allocates_outputs(call.collective)) {
    for (std::size_t i = 0; i < group.size(); ++i) tensors.set(group[i], std::move(p.outputs[i]));
  }
}

}  // namespace

FakeProcessGroup::FakeProcessGroup(FakeProcessGroupOptions options)
    : options_(std::move(options)) {}

core::Result<FakeProcessGroup> FakeProcessGroup::create(FakeProcessGroupOptions options) {
  if (options.world_size < 1) {
    return core::Error::bad_input("fake process group: world size must be >= 1, got " +
                                  std::to_string(options.world_size));
  }
  if (options.world_size > kMaxFakeWorldSize) {
    return core::Error::unsupported(
        "fake process group: a world of " + std::to_string(options.world_size) +
        " ranks is more than the supported maximum of " + std::to_string(kMaxFakeWorldSize) +
        core::limit_note("kMaxFakeWorldSize"));
  }
  if (options.gpus_per_node < 1) {
    return core::Error::bad_input("fake process group: GPUs per node must be >= 1, got " +
                                  std::to_string(options.gpus_per_node));
  }
  FakeProcessGroup pg(std::move(options));
  if (pg.options_.hardware.has_value()) {
    const cost::HardwareProfile& hw = *pg.options_.hardware;
    DTPLAN_CHECK(cost::validate(hw));
    if (pg.options_.gpus_per_node > hw.node.gpus_per_node) {
      return core::Error::bad_input(
          "fake process group: " + std::to_string(pg.options_.gpus_per_node) +
          " GPUs per node exceed the " + std::to_string(hw.node.gpus_per_node) +
          " of hardware profile '" + hw.name + "'");
    }
    // Formulas only: a measured table does not say which algorithm ran.
    pg.model_ = cost::make_collective_model(
        hw, {.kind = cost::ModelKind::kNccl, .use_measured = false, .cache = true});
  }
  return pg;
}

core::Result<GroupPlan> FakeProcessGroup::plan_group(Collective collective, const Group& group,
                                                     std::int64_t nccl_bytes) const {
  if (group.size() <= 1 || nccl_bytes == 0) return GroupPlan{};
  const bool reduces = collective::facts(collective).reduces;
  if (reduces && options_.order == OrderPolicy::kRing) {
    return GroupPlan{cost::Algorithm::kRing, ReductionOrder::kRing};
  }
  if (reduces && options_.order == OrderPolicy::kTree) {
    return GroupPlan{cost::Algorithm::kTree, ReductionOrder::kTree};
  }
  GroupPlan plan;
  if (model_ != nullptr) {
    DTPLAN_TRY(cost::GroupTopology topology,
               cost::group_topology(group, options_.gpus_per_node, group_string(group)));
    DTPLAN_TRY(cost::CollectiveCost c, model_->cost(collective, nccl_bytes, topology));
    plan.algorithm = c.algorithm;
  } else {
    plan.algorithm =
        collective == Collective::kAllToAll ? cost::Algorithm::kP2p : cost::Algorithm::kRing;
  }
  plan.order = reduces ? reduction_order_of(plan.algorithm) : ReductionOrder::kNone;
  return plan;
}

core::Status FakeProcessGroup::run(const CollectiveCall& call, RankTensors& tensors) {
  DTPLAN_CHECK(validate_call(call, world_size()));
  if (tensors.world_size() != world_size()) {
    return core::Error::bad_input(describe(call) + ": the tensor store holds a world of " +
                                  std::to_string(tensors.world_size()) + " ranks, the process " +
                                  "group " + std::to_string(world_size()));
  }
  const bool data = options_.mode == DataMode::kData;

  // Phase 1: validate and plan every group; nothing changes yet.
  std::vector<PreparedGroup> prepared;
  prepared.reserve(call.groups.size());
  for (const Group& group : call.groups) {
    DTPLAN_TRY(PreparedGroup p, prepare_group(*this, call, group, tensors, calls_));
    prepared.push_back(std::move(p));
  }
  // Phase 2: allocate every new output (the only step that can still fail).
  if (data && allocates_outputs(call.collective)) {
    for (PreparedGroup& p : prepared) {
      if (p.group->size() == 1) continue;  // a one-rank group keeps its tensor
      for (std::size_t i = 0; i < p.group->size(); ++i) {
        auto t = Tensor::uninitialized(p.entry.dtype, p.out_shape);
        if (!t.ok()) return context_error(call, *p.group, t.error());
        p.outputs.push_back(std::move(t).value());
      }
    }
  }
  // Phase 3: move the data (or just the shapes).
  for (PreparedGroup& p : prepared) {
    if (data) {
      move_data(call, p, options_.gpus_per_node, tensors);
    } else {
      for (std::int64_t rank : *p.group) {
        tensors.set(rank, Tensor::shape_only(p.entry.dtype, p.out_shape).value());
      }
    }
  }
  for (PreparedGroup& p : prepared) trace_.push_back(std::move(p.entry));
  ++calls_;
  return {};
}

}  // namespace dtplan::sim
