#include "replay/collective_jobs.h"

#include <map>
#include <tuple>

#include "core/checked.h"
#include "core/strings.h"
#include "mesh/mesh_ops.h"

namespace dtplan::replay {

namespace {

using collective::Collective;

// What makes two steps one job.
using JobKey = std::tuple<Collective, sim::ReduceOp, std::vector<std::int32_t>, std::string,
                          core::DType, std::int64_t>;

std::vector<sim::Group> rows_of(const layout::IntTensor& t) { return layout::to_rows(t); }

// The groups a step on `dims` (or the flattened mesh `flattened`) runs on.
core::Result<std::vector<sim::Group>> step_groups(const mesh::DeviceMesh& root,
                                                  const std::vector<std::int32_t>& dims,
                                                  const std::string& flattened,
                                                  const std::string& what) {
  if (!flattened.empty()) {
    for (const mesh::DeviceMesh& flat : mesh::flattened_meshes(root)) {
      if (flat.has_names() && flat.names()[0] == flattened)
        return rows_of(flat.groups(mesh::MeshDim{0}));
    }
    return core::Error::bad_input(what + ": the mesh has no flattened mesh '" + flattened + "'");
  }
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= root.ndim()) {
    std::vector<std::int64_t> wide(dims.begin(), dims.end());
    return core::Error::bad_input(what + ": mesh dims [" + core::format_int_list(wide) +
                                  "] are not one dim of a " + std::to_string(root.ndim()) +
                                  "-d mesh");
  }
  return rows_of(root.groups(mesh::MeshDim{static_cast<std::int8_t>(dims[0])}));
}

core::Result<CollectiveJob> make_job(const mesh::DeviceMesh& root,
                                     const redist::MeshDescription& mesh,
                                     const redist::RedistPlan& plan, const redist::PlanStep& step,
                                     Collective c, const std::string& what) {
  CollectiveJob job;
  job.collective = c;
  if (collective::facts(c).reduces) job.op = step.transform.src.reduce_op();
  job.mesh_dims = step.transform.mesh_dims;
  job.flattened_mesh = step.transform.flattened_mesh;
  job.dtype = plan.src.dtype();
  job.group_size = step.group_size;
  job.bytes = step.bytes;
  job.predicted_us = step.cost_us;
  job.first_use = what;
  DTPLAN_TRY(job.groups, step_groups(root, job.mesh_dims, job.flattened_mesh, what));
  for (const sim::Group& g : job.groups) {
    if (static_cast<std::int64_t>(g.size()) != job.group_size) {
      return core::Error::bad_input(what + ": group_size " + std::to_string(job.group_size) +
                                    ", but the mesh's group " + sim::group_string(g) + " has " +
                                    std::to_string(g.size()) + " ranks");
    }
  }
  const std::int64_t element = core::dtype_bytes(job.dtype);
  if (job.bytes < 0 || job.bytes % element != 0) {
    return core::Error::bad_input(what + ": bytes " + std::to_string(job.bytes) +
                                  " is not a positive number of " +
                                  std::string(core::dtype_name(job.dtype)) + " elements");
  }
  if (c == Collective::kAllToAll && (job.bytes / element) % job.group_size != 0) {
    return core::Error::bad_input(what + ": all_to_all of " + std::to_string(job.bytes / element) +
                                  " elements does not split into " +
                                  std::to_string(job.group_size) + " equal pieces");
  }
  if (c == Collective::kReduceScatter) {
    DTPLAN_CHECK(core::checked_mul(job.bytes, job.group_size, what + ": input bytes"));
  }
  DTPLAN_TRY(job.nccl_bytes,
             collective::nccl_size_from_rank_bytes(c, job.bytes, job.group_size, what));
  DTPLAN_TRY(job.topology, cost::group_topology(job.groups[0], mesh.gpus_per_node, what));
  return job;
}

}  // namespace

core::Result<std::vector<CollectiveJob>> collect_jobs(const ReplaySource& source) {
  DTPLAN_TRY(mesh::DeviceMesh root, redist::build_described_mesh(source.mesh));
  std::vector<CollectiveJob> jobs;
  std::map<JobKey, std::size_t> index;
  for (const ReplayRedistribution& r : source.redistributions) {
    for (std::size_t i = 0; i < r.plan.steps.size(); ++i) {
      const redist::PlanStep& step = r.plan.steps[i];
      const std::optional<Collective> c = redist::collective_of(step.transform.kind);
      if (!c || step.group_size <= 1 || step.bytes == 0) continue;
      const std::string what = r.label + " step " + std::to_string(i);
      const sim::ReduceOp op =
          collective::facts(*c).reduces ? step.transform.src.reduce_op() : sim::ReduceOp::kSum;
      JobKey key{*c,
                 op,
                 step.transform.mesh_dims,
                 step.transform.flattened_mesh,
                 r.plan.src.dtype(),
                 step.bytes};
      auto it = index.find(key);
      if (it != index.end()) {
        ++jobs[it->second].count;
        continue;
      }
      DTPLAN_TRY(CollectiveJob job, make_job(root, source.mesh, r.plan, step, *c, what));
      job.count = 1;
      index.emplace(std::move(key), jobs.size());
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

sim::CollectiveCall job_call(const CollectiveJob& job) {
  return {job.collective, job.groups, job.op, 0};
}

sim::Shape job_input_shape(const CollectiveJob& job) {
  const std::int64_t elements = job.bytes / core::dtype_bytes(job.dtype);
  return {job.collective == collective::Collective::kReduceScatter ? elements * job.group_size
                                                                   : elements};
}

std::string dims_label(const redist::MeshDescription& mesh, const std::vector<std::int32_t>& dims) {
  std::vector<std::string> out;
  for (std::int32_t d : dims) {
    const auto i = static_cast<std::size_t>(d);
    out.push_back(d >= 0 && i < mesh.names.size() ? mesh.names[i] : std::to_string(d));
  }
  return core::join(out, ",");
}

}  // namespace dtplan::replay
