#include "strategy/candidates.h"

#include <cassert>
#include <string>

namespace dtplan::strategy {

core::Result<std::vector<Candidate>> expand_rows(std::span<const DimRow> rows,
                                                 std::size_t mesh_ndim, std::string_view what) {
  std::size_t total = rows.empty() ? 0 : 1;
  for (std::size_t k = 0; k < mesh_ndim && total > 0; ++k) {
    if (total > kMaxCandidates / rows.size()) {
      return core::Error::unsupported(std::string(what) + ": " + std::to_string(rows.size()) +
                                      " options per mesh dim on " + std::to_string(mesh_ndim) +
                                      " mesh dims exceed " + std::to_string(kMaxCandidates) +
                                      " strategies");
    }
    total *= rows.size();
  }
  std::vector<Candidate> out;
  if (total == 0) return out;
  const std::size_t n_out = rows[0].outputs.size(), n_in = rows[0].inputs.size();
  out.reserve(total);
  std::vector<std::size_t> pick(mesh_ndim, 0);  // row per mesh dim; the last varies fastest
  for (std::size_t c = 0; c < total; ++c) {
    Candidate cand;
    cand.outputs.assign(n_out, Placements(mesh_ndim));
    cand.inputs.assign(n_in, Placements(mesh_ndim));
    for (std::size_t k = 0; k < mesh_ndim; ++k) {
      const DimRow& row = rows[pick[k]];
      assert(row.outputs.size() == n_out && row.inputs.size() == n_in);
      for (std::size_t t = 0; t < n_out; ++t) cand.outputs[t][k] = row.outputs[t];
      for (std::size_t t = 0; t < n_in; ++t) cand.inputs[t][k] = row.inputs[t];
      if (row.masked) cand.masked_partial |= placement::MeshDimMask{1} << k;
    }
    out.push_back(std::move(cand));
    for (std::size_t k = mesh_ndim; k-- > 0;) {
      if (++pick[k] < rows.size()) break;
      pick[k] = 0;
    }
  }
  return out;
}

Candidate uniform_candidate(const Placements& placements, std::size_t outputs, std::size_t inputs,
                            std::int32_t source) {
  Candidate c;
  c.outputs.assign(outputs, placements);
  c.inputs.assign(inputs, placements);
  c.source = source;
  return c;
}

}  // namespace dtplan::strategy
