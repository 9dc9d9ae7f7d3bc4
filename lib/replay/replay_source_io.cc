#include "replay/replay_source_io.h"

#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "core/text_file.h"
#include "plan/plan_check.h"
#include "plan/plan_io.h"
#include "redist/redist_plan_check.h"
#include "redist/redist_plan_io.h"

namespace dtplan::replay {

namespace {

// The profile `hardware` finds for a plan's mesh, if any.
std::optional<cost::HardwareProfile> profile_of(const HardwareLookup& hardware,
                                                const redist::MeshDescription& mesh) {
  return hardware ? hardware(mesh.hardware) : std::nullopt;
}

}  // namespace

core::Result<ReplaySource> read_replay_source(std::string_view text, std::string_view source,
                                              const HardwareLookup& hardware) {
  DTPLAN_TRY(const nlohmann::ordered_json doc, core::parse_json(text, source));
  if (!doc.is_object()) {
    return core::Error::bad_input(std::string(source) + ": expected a JSON object (a plan)");
  }
  if (plan::is_model_plan_json(text)) {
    DTPLAN_TRY(plan::Plan model, plan::read_plan_json(text, source));
    const std::optional<cost::HardwareProfile> profile = profile_of(hardware, model.mesh);
    if (profile) {
      if (auto s = plan::check_plan_prices(model, *profile); !s.ok()) {
        return s.error().with_context(source);
      }
    }
    ReplaySource out = from_model_plan(model);
    out.repriced = profile.has_value();
    return out;
  }
  if (doc.contains("steps")) {
    DTPLAN_TRY(redist::RedistPlan plan, redist::read_plan_json(text, source));
    const std::optional<cost::HardwareProfile> profile = profile_of(hardware, plan.mesh);
    if (profile) {
      if (auto s = redist::check_plan_prices(plan, *profile); !s.ok()) {
        return s.error().with_context(source);
      }
    }
    ReplaySource out = from_redist_plan(std::move(plan));
    out.repriced = profile.has_value();
    return out;
  }
  return core::Error::bad_input(
      std::string(source) +
      ": neither a redistribute plan (no 'steps') nor a model plan (\"format\": \"" +
      std::string(plan::kPlanFormat) + "\")");
}

core::Result<ReplaySource> load_replay_source(const std::string& path,
                                              const HardwareLookup& hardware) {
  auto text = core::read_text_file(path, "plan file");
  if (!text.ok()) return text.error().with_context("--plan");
  return read_replay_source(*text, path, hardware);
}

}  // namespace dtplan::replay
