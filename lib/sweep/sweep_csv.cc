#include "sweep/sweep_csv.h"

#include "core/strings.h"
#include "core/units.h"

namespace dtplan::sweep {

namespace {

const char* boolean(bool b) { return b ? "true" : "false"; }

std::string flatten_text(const MeshCandidate& c) {
  std::string out;
  for (const mesh::FlattenSpec& f : c.flatten) {
    if (!out.empty()) out += ' ';
    for (std::size_t i = 0; i < f.dims.size(); ++i) out += (i ? "+" : "") + f.dims[i];
  }
  return out;
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string sweep_csv(const SweepResult& result) {
  std::string out =
      "rank,shape,names,flatten,batch,grad_accum,checkpoint,parallelize,step_time_us,compute_us,"
      "communication_us,exposed_us,other_us,memory_bytes_per_rank,tokens_per_s_per_gpu,mfu,"
      "fits_memory,feasible,optimal,tp_within_node,note\r\n";
  for (std::size_t i = 0; i < result.rows.size(); ++i) {
    const SweepRow& r = result.rows[i];
    const MeshEvaluation& e = r.evaluation;
    const std::string fields[] = {std::to_string(i + 1),
                                  shape_label(r.mesh.shape),
                                  csv_field(core::join(r.mesh.names, ",")),
                                  csv_field(flatten_text(r.mesh)),
                                  std::to_string(row_batch(result.setup, r.mesh)),
                                  std::to_string(row_grad_accum(result.setup, r.mesh)),
                                  row_checkpoint(result.setup, r.mesh),
                                  std::string(parallelize_name(r.mesh.parallelize)),
                                  core::format_fixed(e.step_time_us, 3),
                                  core::format_fixed(e.compute_us, 3),
                                  core::format_fixed(e.communication_us, 3),
                                  core::format_fixed(e.exposed_us, 3),
                                  core::format_fixed(e.other_us(), 3),
                                  std::to_string(e.memory_bytes_per_rank),
                                  core::format_fixed(e.tokens_per_s_per_gpu, 3),
                                  core::format_fixed(e.mfu, 6),
                                  boolean(r.fits_memory),
                                  boolean(e.feasible),
                                  boolean(e.optimal),
                                  boolean(r.tp_within_node),
                                  csv_field(r.error.empty() ? e.note : "error: " + r.error)};
    for (std::size_t f = 0; f < std::size(fields); ++f) {
      if (f > 0) out += ',';
      out += fields[f];
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace dtplan::sweep
