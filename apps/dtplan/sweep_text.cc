#include "sweep_text.h"

#include <algorithm>

#include "core/strings.h"
#include "core/text_table.h"
#include "core/units.h"
#include "sweep/pareto.h"
#include "sweep/space_text.h"

namespace dtplan::cli {

namespace {

using sweep::SweepRow;

// Which optional columns the table has.
struct Shown {
  bool batch = false, accum = false, checkpoint = false, plan = false, rate = false;
};

Shown shown(const sweep::SweepResult& r) {
  const sweep::CandidateOptions& o = r.setup.space;
  Shown s{!o.batches.empty(), !o.grad_accums.empty(), !o.checkpoints.empty(),
          o.parallelize.size() > 1, false};
  s.rate = std::any_of(r.rows.begin(), r.rows.end(),
                       [](const SweepRow& row) { return row.evaluation.tokens_per_step > 0; });
  return s;
}

std::string status_text(const SweepRow& row) {
  if (!row.evaluation.feasible) return "infeasible";
  if (!row.fits_memory) return "over-memory";
  return row.evaluation.optimal ? "optimal" : "feasible";
}

std::string title(const sweep::SweepResult& r) {
  const sweep::SweepSetup& s = r.setup;
  std::vector<std::string> dims;
  for (std::int32_t d : s.dims) dims.push_back(std::to_string(d));
  return "dtplan sweep: " + s.model + " (" + std::to_string(s.layers) + " layers) on " +
         std::to_string(s.world) + " ranks, " + s.hardware + " (" +
         std::to_string(s.gpus_per_node) + " GPUs per node); dims " + core::join(dims, ",") +
         "; memory limit " +
         (s.memory_limit_bytes == 0 ? std::string("none")
                                    : core::format_size(s.memory_limit_bytes)) +
         "\n# tried: " + sweep::space_text(s) + " (" + std::to_string(r.rows.size()) +
         " configurations)\n# evaluator: " + s.evaluator +
         "\n# ranked: usable first, then step time per token, memory, shape";
}

core::TextTable make_table(const sweep::SweepResult& r, const Shown& on) {
  std::vector<core::Column> cols = {
      {"rank", ""}, {"mesh", "", core::Align::kLeft}, {"names", "", core::Align::kLeft}};
  if (on.batch) cols.push_back({"batch", ""});
  if (on.accum) cols.push_back({"accum", ""});
  if (on.checkpoint) cols.push_back({"ckpt", "", core::Align::kLeft});
  if (on.plan) cols.push_back({"plan", "", core::Align::kLeft});
  cols.push_back({"step", "ms"});
  if (on.rate) {
    cols.push_back({"tok/s", "/GPU"});
    cols.push_back({"MFU", "%"});
  }
  for (const char* name : {"compute", "exposed", "comm"}) cols.push_back({name, "ms"});
  cols.push_back({"memory", "GiB"});
  cols.push_back({"status", "", core::Align::kLeft});
  cols.push_back({"note", "", core::Align::kLeft});
  return core::TextTable(std::move(cols), title(r));
}

std::vector<std::string> cells(const sweep::SweepResult& r, std::size_t i, const Shown& on) {
  const SweepRow& row = r.rows[i];
  const sweep::MeshEvaluation& e = row.evaluation;
  const auto ms = [](double us) { return core::format_fixed(us / 1000.0, 3); };
  std::vector<std::string> c = {std::to_string(i + 1), sweep::shape_label(row.mesh.shape),
                                core::join(row.mesh.names, ",")};
  if (on.batch) c.push_back(std::to_string(sweep::row_batch(r.setup, row.mesh)));
  if (on.accum) c.push_back(std::to_string(sweep::row_grad_accum(r.setup, row.mesh)));
  if (on.checkpoint) c.push_back(sweep::row_checkpoint(r.setup, row.mesh));
  if (on.plan) c.emplace_back(sweep::parallelize_name(row.mesh.parallelize));
  c.push_back(ms(e.step_time_us));
  if (on.rate) {
    c.push_back(core::format_fixed(e.tokens_per_s_per_gpu, 1));
    c.push_back(core::format_fixed(100 * e.mfu, 1));
  }
  for (double us : {e.compute_us, e.exposed_us, e.communication_us}) c.push_back(ms(us));
  c.push_back(core::format_fixed(static_cast<double>(e.memory_bytes_per_rank) / (1 << 30), 2));
  c.push_back(status_text(row));
  std::string note = e.note;
  if (!row.tp_within_node) note = "tp spans nodes" + std::string(note.empty() ? "" : "; ") + note;
  c.push_back(note);
  return c;
}

// "# best per memory limit: from 12.40 GiB #1 8x8 (dp_shard,tp); from 9.10 GiB #4 ...".
std::string best_lines(const sweep::SweepResult& r) {
  const std::vector<std::size_t> best = sweep::best_per_memory(r);
  if (best.empty()) return "# best per memory limit: no configuration fits\n";
  std::string out = "# best per memory limit (from that memory per rank up):\n";
  for (std::size_t i : best) {
    const SweepRow& row = r.rows[i];
    out += "#   " +
           core::format_fixed(static_cast<double>(row.evaluation.memory_bytes_per_rank) / (1 << 30),
                              2) +
           " GiB  #" + std::to_string(i + 1) + "  " + sweep::candidate_text(row.mesh) + "\n";
  }
  return out;
}

}  // namespace

std::string sweep_text(const sweep::SweepResult& result, std::int64_t top) {
  const Shown on = shown(result);
  core::TextTable t = make_table(result, on);
  const std::size_t n =
      top > 0 ? std::min(result.rows.size(), static_cast<std::size_t>(top)) : result.rows.size();
  for (std::size_t i = 0; i < n; ++i) t.add_row(cells(result, i, on));
  std::string out = t.render();
  if (n < result.rows.size()) {
    out += "# ... " + std::to_string(result.rows.size() - n) +
           " more (--top 0 prints every row; --json, --csv and --html hold them all)\n";
  }
  return out + best_lines(result);
}

}  // namespace dtplan::cli
