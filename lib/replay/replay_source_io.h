#pragma once
// Reads the plan file `dtplan replay` is given and tells its two kinds apart: a JSON object whose
// "format" is "dtplan-plan" is a whole-model plan (`dtplan plan --out`, plan/plan_io.h), one with
// "steps" is a redistribute plan (`dtplan redistribute --json`, redist/redist_plan_io.h).
// Each is read and checked by its own reader; errors name the file and the field (kBadInput).
// Where `hardware` finds the profile the plan's mesh names, the steps are re-priced from it as
// `dtplan simulate` does (plan::check_plan_prices, redist::check_plan_prices) and
// ReplaySource::repriced is set; without it the costs are checked for range only.
//
//   DTPLAN_TRY(ReplaySource s, load_replay_source("plan.json", lookup));

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "cost/hardware.h"
#include "replay/replay_source.h"

namespace dtplan::replay {

// The hardware profile called `name`, or nullopt where none is at hand.
using HardwareLookup = std::function<std::optional<cost::HardwareProfile>(const std::string& name)>;

// Parses `text` (the contents of `source`). Errors (kBadInput): not JSON, not an object, neither
// kind, the kind's reader rejects it, or a cost is not the profile's price.
core::Result<ReplaySource> read_replay_source(std::string_view text, std::string_view source,
                                              const HardwareLookup& hardware = {});

// Reads the file at `path`; an unreadable file is kBadInput naming it.
core::Result<ReplaySource> load_replay_source(const std::string& path,
                                              const HardwareLookup& hardware = {});

}  // namespace dtplan::replay
