#include "redist/cost_model.h"

#include "collective/collective.h"
#include "cost/collective_model.h"
#include "cost/compute_work.h"
#include "redist/dtensor_model.h"

namespace dtplan::redist {

namespace {

// The nccl model: cost::NcclModel (with the profile's measured tables) behind cost::CachedModel
// for collectives, the roofline for local ops.
class NcclStepModel final : public CostModel {
 public:
  explicit NcclStepModel(cost::HardwareProfile profile)
      : profile_(std::move(profile)),
        collectives_(cost::make_collective_model(profile_, {cost::ModelKind::kNccl, true, true})) {}

  [[nodiscard]] std::string_view name() const override { return "nccl"; }

  [[nodiscard]] core::Result<StepPrice> price(const MeshContext& mesh,
                                              const StepQuery& q) const override {
    const GroupSet& g = mesh.groups(q.mesh_dims, q.flattened);
    if (g.size == 1) return StepPrice{};
    StepPrice out;
    if (auto c = collective_of(q.kind)) {
      DTPLAN_TRY(std::int64_t size,
                 collective::nccl_size_from_rank_bytes(*c, q.bytes, g.size, "step bytes"));
      // All groups run at once: the step takes as long as its slowest group structure. Ties keep
      // the first topology (groups in creation order).
      bool first = true;
      for (const cost::GroupTopology& topo : g.topologies) {
        DTPLAN_TRY(cost::CollectiveCost c_cost, collectives_->cost(*c, size, topo));
        if (first || c_cost.time_us > out.cost_us) {
          out = {c_cost.time_us, c_cost.algorithm, c_cost.protocol};
          first = false;
        }
      }
    } else if (q.kind == StepKind::kLocalChunk || q.divides) {
      DTPLAN_TRY(out.cost_us, local_traffic_us(profile_, q.bytes));
    }
    if (q.avg_scale > 1) {
      DTPLAN_TRY(double divide_us, local_traffic_us(profile_, q.bytes));
      out.cost_us += divide_us;
    }
    return out;
  }

 private:
  cost::HardwareProfile profile_;
  std::unique_ptr<cost::CollectiveModel> collectives_;
};

}  // namespace

std::string_view cost_model_name(CostModelKind kind) {
  return kind == CostModelKind::kNccl ? "nccl" : "dtensor";
}

core::Result<CostModelKind> parse_cost_model(std::string_view text, std::string_view what) {
  if (text == "nccl") return CostModelKind::kNccl;
  if (text == "dtensor") return CostModelKind::kDTensor;
  return core::Error::bad_input(std::string(what) + ": unknown cost model '" + std::string(text) +
                                "'; expected nccl or dtensor");
}

std::unique_ptr<CostModel> make_cost_model(CostModelKind kind,
                                           const cost::HardwareProfile& profile) {
  if (kind == CostModelKind::kDTensor) return std::make_unique<DTensorModel>(profile);
  return std::make_unique<NcclStepModel>(profile);
}

core::Result<double> local_traffic_us(const cost::HardwareProfile& profile, std::int64_t bytes) {
  DTPLAN_TRY(cost::ComputeCost c,
             cost::local_op_cost(cost::LocalOp::kChunkCopy, bytes, bytes, profile));
  return c.time_us;
}

}  // namespace dtplan::redist
