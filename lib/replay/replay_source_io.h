#pragma once
// Reads the plan file `dtplan replay` is given and tells its two kinds apart: a JSON object whose
// "format" is "dtplan-plan" is a whole-model plan (`dtplan plan --out`, plan/plan_io.h), one with
// "steps" is a redistribute plan (`dtplan redistribute --json`, redist/redist_plan_io.h).
// Each is read and checked by its own reader; errors name the file and the field (kBadInput).
//
//   DTPLAN_TRY(ReplaySource s, load_replay_source("plan.json"));

#include <string>
#include <string_view>

#include "core/result.h"
#include "replay/replay_source.h"

namespace dtplan::replay {

// Parses `text` (the contents of `source`). Errors (kBadInput): not JSON, not an object, neither
// kind, or the kind's reader rejects it.
core::Result<ReplaySource> read_replay_source(std::string_view text, std::string_view source);

// Reads the file at `path`; an unreadable file is kBadInput naming it.
core::Result<ReplaySource> load_replay_source(const std::string& path);

}  // namespace dtplan::replay
