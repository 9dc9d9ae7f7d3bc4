#include "plan_summary_text.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "plan/costliest.h"
#include "plan/parameter_family.h"
#include "plan_text.h"
#include "sim/step_report.h"
#include "strategy/parallel_style.h"

namespace dtplan::cli {

namespace {

std::string fixed(double v, int digits = 2) { return core::format_fixed(v, digits); }

std::string gib(std::int64_t bytes) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(std::int64_t{1} << 30), 2);
}

// "dp,tp 8x8 (64 GPUs), flattened dp_tp".
std::string mesh_text(const redist::MeshDescription& mesh) {
  std::vector<std::string> sizes;
  std::int64_t gpus = 1;
  for (std::int64_t s : mesh.shape) {
    sizes.push_back(std::to_string(s));
    gpus *= s;
  }
  std::string text =
      core::join(sizes, "x") + " (" + std::to_string(gpus) + (gpus == 1 ? " GPU)" : " GPUs)");
  if (!mesh.names.empty()) text = core::join(mesh.names, ",") + " " + text;
  text += flattened_text(mesh);
  return text;
}

// "compiled with async TP, checkpoint full, float8 tensorwise, 4 microbatches, gradients reduced
// every microbatch" (the async TP and float8 parts only when on).
std::string training_text(const core::TrainingOptions& t) {
  const std::string float8 = t.float8 == core::Float8Recipe::kNone
                                 ? ""
                                 : ", float8 " + std::string(core::float8_recipe_name(t.float8));
  const std::string async = t.async_tp == core::AsyncTp::kOn ? " with async TP" : "";
  return std::string(core::execution_name(t.execution)) + async + ", checkpoint " +
         std::string(core::checkpoint_policy_name(t.checkpoint)) + float8 + ", " +
         std::to_string(t.grad_accum) + (t.grad_accum == 1 ? " microbatch" : " microbatches") +
         ", gradients reduced " +
         (t.grad_sync == core::GradSync::kEveryMicrobatch ? "every microbatch"
                                                          : "on the last microbatch");
}

std::string step_line(const HeadlineStep& s) {
  if (!s.step) return "# simulated step: not simulated (" + s.unavailable + ")\n";
  const plan::StepFigures& f = *s.step;
  std::string line = "# simulated step " + fixed(f.step_time_us / 1000.0) + " ms";
  if (f.tokens_per_s_per_gpu)
    line += ", " + fixed(*f.tokens_per_s_per_gpu, 1) + " tokens/s per GPU";
  if (f.mfu) line += ", MFU " + fixed(100.0 * *f.mfu, 1) + "%";
  return line + " (exposed communication " + fixed(f.exposed_communication_us / 1000.0) + " ms)\n";
}

std::string memory_line(const plan::MemorySummary& m) {
  std::string line = "# peak memory per rank " + gib(m.peak_bytes_per_rank) + " GiB";
  if (m.limit_bytes > 0) {
    return line + " of the " + gib(m.limit_bytes) + " GiB limit (" +
           fixed(100.0 * static_cast<double>(m.peak_bytes_per_rank) /
                     static_cast<double>(m.limit_bytes),
                 1) +
           "%)\n";
  }
  return line + " (no limit set)\n";
}

// The solver's proof: optimal, or how far its objective may be above the optimum.
std::string solver_line(const strategy::ModelPlan& mp) {
  const plan::SolverSummary& s = mp.plan.solver;
  std::string proof;
  if (s.optimal) {
    proof = " (optimal)";
  } else if (s.lower_bound_us > 0 && s.objective_us > 0) {
    const double gap = (s.objective_us - s.lower_bound_us) / s.objective_us;
    proof = " (within " + fixed(100.0 * gap, 3) + "% of the lower bound" +
            (s.stop_reason.empty() ? "" : "; stopped: " + s.stop_reason) + ")";
  } else if (!s.stop_reason.empty()) {
    proof = " (stopped: " + s.stop_reason + ")";
  }
  return "# solver " + s.name + proof + ": objective " + fixed(s.objective_us) +
         " us, lower bound " + fixed(s.lower_bound_us) + " us, solve " + fixed(s.time_s, 3) +
         " s, total " + fixed(mp.stats.total_s, 3) + " s\n";
}

// "all_gather(dp) + local_chunk(tp)": a redistribution's steps.
std::string steps_text(const redist::RedistPlan& r) {
  std::vector<std::string> parts;
  for (const redist::PlanStep& s : r.steps) {
    parts.push_back(std::string(redist::step_kind_name(s.transform.kind)) + "(" +
                    (s.transform.flattened() ? s.transform.flattened_mesh
                                             : mesh_dims_text(r.mesh, s.transform.mesh_dims)) +
                    ")");
  }
  return parts.empty() ? "-" : core::join(parts, " + ");
}

}  // namespace

std::string headline_text(const strategy::ModelPlan& mp, const HeadlineStep& step) {
  const plan::Plan& plan = mp.plan;
  return "# dtplan plan: " + plan.model + " (" + std::to_string(plan.layers) +
         (plan.layers == 1 ? " layer) on " : " layers) on ") + mesh_text(plan.mesh) + "; " +
         hardware_text(plan.mesh) + "\n" + step_line(step) + memory_line(plan.memory) +
         solver_line(mp) + "# step: " + training_text(plan.training) + "\n# nodes " +
         std::to_string(plan.ops.size()) + ", strategies " + std::to_string(plan.strategies) +
         ", redistributions " + std::to_string(plan.redistributions.size()) + "\n";
}

std::string parameters_text(const plan::Plan& plan) {
  // Each family's distinct placements in first-seen order, with their parameter counts.
  struct Row {
    std::string placements;
    std::string style;
    std::int64_t count = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, std::vector<Row>> families;
  for (const plan::PlanOp& op : plan.ops) {
    if (op.role != core::OpRole::kParam) continue;
    const std::string family = plan::parameter_family(op.name);
    auto [it, fresh] = families.try_emplace(family);
    if (fresh) order.push_back(family);
    const std::string text = placements_text(op.placements);
    auto row = std::find_if(it->second.begin(), it->second.end(),
                            [&](const Row& r) { return r.placements == text; });
    if (row == it->second.end()) {
      it->second.push_back(
          {text,
           strategy::torchtitan_style(op.name, op.shape.size(), op.placements, plan.mesh.names),
           0});
      row = it->second.end() - 1;
    }
    ++row->count;
  }
  core::TextTable t(
      {{"parameter", "", core::Align::kLeft},
       {"count", ""},
       {"placements", "", core::Align::kLeft},
       {"torchtitan", "", core::Align::kLeft}},
      "parameters by family (DTensor placements per mesh dim " +
          (plan.mesh.names.empty() ? std::string("0..") : core::join(plan.mesh.names, ",")) +
          "; torchtitan's style where one matches)");
  for (const std::string& family : order) {
    for (const Row& r : families[family]) {
      t.add_row({family, std::to_string(r.count), r.placements, r.style});
    }
  }
  return t.rows() == 0 ? "# (no parameters)\n" : t.render();
}

std::string costliest_text(const plan::Plan& plan, std::size_t n) {
  const std::vector<plan::RankedRedistribution> ranked = plan::costliest_redistributions(plan, n);
  if (ranked.empty()) return "# (no redistribution costs anything)\n";
  core::TextTable t({{"op", "", core::Align::kLeft},
                     {"input", "", core::Align::kLeft},
                     {"from -> to", "", core::Align::kLeft},
                     {"steps", "", core::Align::kLeft},
                     {"bytes", ""},
                     {"time", "us"},
                     {"runs", ""},
                     {"per step", "us"}},
                    "the " + std::to_string(ranked.size()) +
                        " costliest redistributions per step (time x runs; ties: op name, input)");
  for (const plan::RankedRedistribution& e : ranked) {
    const plan::PlanRedistribution& r = plan.redistributions[e.index];
    std::int64_t bytes = 0;
    for (const redist::PlanStep& s : r.plan.steps) bytes += s.bytes;
    t.add_row({plan.ops[static_cast<std::size_t>(r.consumer)].name,
               std::to_string(r.slot) + ": " + plan.ops[static_cast<std::size_t>(r.producer)].name,
               placement::format_placement_list(r.plan.src) + " -> " +
                   placement::format_placement_list(r.plan.dst),
               steps_text(r.plan), bytes_text(bytes), fixed(r.plan.total_cost_us),
               std::to_string(e.runs), fixed(e.step_us)});
  }
  return t.render();
}

std::string totals_text(const plan::Plan& plan) {
  const plan::CostSummary& c = plan.cost;
  auto part = [&](const char* name, double v) {
    return std::string(name) + " " + fixed(v / 1000.0) + " ms (" +
           fixed(c.total_us > 0 ? 100.0 * v / c.total_us : 0.0, 1) + "%)";
  };
  std::string text = "# cost per step, nothing overlapped: " + part("compute", c.compute_us) +
                     ", " + part("communication", c.communication_us) + ", " +
                     part("redistribution", c.redistribution_us) + "; total " +
                     fixed(c.total_us / 1000.0) + " ms\n";
  core::TextTable coll({{"collective", "", core::Align::kLeft},
                        {"mesh_dims", "", core::Align::kLeft},
                        {"flattened", "", core::Align::kLeft},
                        {"group", "ranks"},
                        {"count", ""},
                        {"bytes", ""},
                        {"time", "us"}},
                       "collectives per step");
  for (const plan::CollectiveSummary& s : plan.collectives) {
    coll.add_row({std::string(collective::name(s.kind)), mesh_dims_text(plan.mesh, s.mesh_dims),
                  s.flattened.empty() ? "-" : s.flattened, std::to_string(s.group_size),
                  std::to_string(s.count), bytes_text(s.bytes), fixed(s.time_us)});
  }
  text += plan.collectives.empty() ? "# (no collectives)\n" : coll.render();
  text += sim::memory_text(plan.memory);
  // Warnings counted once per (reason, mesh dims, message), in first-seen order.
  std::vector<std::pair<std::string, std::int64_t>> warnings;
  for (const redist::Warning& w : plan.warnings) {
    const std::string line = warning_lines(plan.mesh, {w});
    auto it = std::find_if(warnings.begin(), warnings.end(),
                           [&](const auto& seen) { return seen.first == line; });
    if (it == warnings.end()) {
      warnings.emplace_back(line, 1);
    } else {
      ++it->second;
    }
  }
  for (const auto& [line, count] : warnings) {
    text +=
        count == 1 ? line : line.substr(0, line.size() - 1) + " (x" + std::to_string(count) + ")\n";
  }
  return text;
}

}  // namespace dtplan::cli
