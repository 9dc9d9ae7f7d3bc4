#include "replay/replay_source_io.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plan/plan_io.h"
#include "redist/redist_plan_io.h"

namespace dtplan::replay {

core::Result<ReplaySource> read_replay_source(std::string_view text, std::string_view source) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return core::Error::bad_input(std::string(source) + ": not a JSON document");
  }
  if (!doc.is_object()) {
    return core::Error::bad_input(std::string(source) + ": expected a JSON object (a plan)");
  }
  if (plan::is_model_plan_json(text)) {
    DTPLAN_TRY(plan::Plan model, plan::read_plan_json(text, source));
    return from_model_plan(model);
  }
  if (doc.contains("steps")) {
    DTPLAN_TRY(redist::RedistPlan plan, redist::read_plan_json(text, source));
    return from_redist_plan(std::move(plan));
  }
  return core::Error::bad_input(
      std::string(source) +
      ": neither a redistribute plan (no 'steps') nor a model plan (\"format\": \"" +
      std::string(plan::kPlanFormat) + "\")");
}

core::Result<ReplaySource> load_replay_source(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Error::bad_input("--plan: cannot read the plan file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return read_replay_source(text.str(), path);
}

}  // namespace dtplan::replay
