#pragma once
// The text report of `dtplan sweep`: a header saying what was tried, the ranked table (its best
// `top` rows, 0: all; a last line says how many more the JSON, CSV and HTML hold), and the best
// configuration per memory limit (sweep::best_per_memory). Columns for batch, grad-accum,
// checkpoint and plan appear only when the sweep varies them; tokens/s per GPU and MFU only for
// a language model (tokens to count).

#include <cstdint>
#include <string>

#include "sweep/sweep_result.h"

namespace dtplan::cli {

std::string sweep_text(const sweep::SweepResult& result, std::int64_t top);

}  // namespace dtplan::cli
