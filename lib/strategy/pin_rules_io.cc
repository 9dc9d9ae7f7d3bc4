#include "strategy/pin_rules_io.h"

#include <algorithm>
#include <limits>
#include <set>

#include "core/json_io.h"
#include "core/strings.h"
#include "placement/placement_text.h"

namespace dtplan::strategy {

namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kRuleFields = {"name", "match", "placements", "strategy"};

struct RuleReader {
  const core::JsonReader& reader;
  const std::vector<std::string>& mesh_names;
  std::string prefix;  // "<source>: rule 'wq'"

  [[nodiscard]] core::Error error(const std::string& what) const {
    return core::Error::bad_input(prefix + ": " + what);
  }

  // One placement per mesh dim from "S(0),R".
  [[nodiscard]] core::Result<Placements> from_list(const std::string& text) const {
    auto parsed = placement::parse_placement_list(text, "placements");
    if (!parsed.ok()) return error(parsed.error().message);
    if (parsed->placements.size() != mesh_names.size()) {
      return error("placements '" + text + "' have " + std::to_string(parsed->placements.size()) +
                   " entries; the mesh has " + std::to_string(mesh_names.size()) + " dims (" +
                   core::join(mesh_names, ", ") + ")");
    }
    const auto& order = parsed->order_positions;
    if (std::any_of(order.begin(), order.end(), [](std::int32_t k) { return k >= 0; })) {
      return error("placements '" + text +
                   "': a shard-order suffix [k] cannot be pinned; write the split as "
                   "_S(d,sf) the way DTensor does");
    }
    return std::move(parsed->placements);
  }

  // {"dp": "S(0)", "tp": "R"}: named dims as given, the others Replicate.
  [[nodiscard]] core::Result<Placements> from_object(const Json& j) const {
    Placements out(mesh_names.size(), placement::Placement::replicate());
    for (const auto& [key, value] : j.items()) {
      auto dim = std::find(mesh_names.begin(), mesh_names.end(), key);
      if (dim == mesh_names.end()) {
        return error("unknown mesh dim '" + key + "' (the mesh has " +
                     core::join(mesh_names, ", ") + ")");
      }
      if (!value.is_string()) {
        return error("placements." + key + ": expected a placement such as \"S(0)\"");
      }
      auto p = placement::parse_placement(value.get<std::string>(), "placements." + key);
      if (!p.ok()) return error(p.error().message);
      out[static_cast<std::size_t>(dim - mesh_names.begin())] = *p;
    }
    return out;
  }

  [[nodiscard]] core::Result<PinRule> rule(const Json& j, std::string name) const {
    for (const auto& [key, value] : j.items()) {
      if (std::find(kRuleFields.begin(), kRuleFields.end(), key) == kRuleFields.end()) {
        return error("unknown field '" + key + "' (expected " + core::join(kRuleFields, ", ") +
                     ")");
      }
    }
    PinRule r;
    r.name = std::move(name);
    if (!j.contains("match") || !j.at("match").is_string() ||
        j.at("match").get<std::string>().empty()) {
      return error("field 'match': expected a non-empty regex string");
    }
    r.pattern = j.at("match").get<std::string>();
    if (j.contains("placements") == j.contains("strategy")) {
      return error("give exactly one of 'placements' and 'strategy'");
    }
    if (j.contains("strategy")) {
      const Json& s = j.at("strategy");
      if (!s.is_number_integer() || s.get<std::int64_t>() < 0 ||
          s.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
        return error("field 'strategy': expected a strategy index >= 0, got " + s.dump());
      }
      r.kind = PinKind::kStrategy;
      r.strategy = s.get<std::int32_t>();
      return r;
    }
    const Json& p = j.at("placements");
    if (p.is_string()) {
      DTPLAN_TRY(r.placements, from_list(p.get<std::string>()));
    } else if (p.is_object()) {
      DTPLAN_TRY(r.placements, from_object(p));
    } else {
      return error(
          "field 'placements': expected a list such as \"S(0),R\" or an object such as "
          "{\"dp\": \"S(0)\"}");
    }
    return r;
  }
};

}  // namespace

core::Result<PinSet> parse_pin_rules(std::string_view text, std::string_view source,
                                     const std::vector<std::string>& mesh_names) {
  core::JsonReader reader(source);
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  if (!doc.is_object()) return reader.error("", "expected an object {\"rules\": [...]}");
  for (const auto& [key, value] : doc.items()) {
    if (key != "rules") return reader.error(key, "unknown field (expected rules)");
  }
  DTPLAN_TRY(const Json* rules, reader.list(doc, "rules", ""));
  if (rules->empty()) return reader.error("rules", "empty (give at least one rule)");
  PinSet out;
  out.source = std::string(source);
  std::set<std::string> names;
  for (std::size_t i = 0; i < rules->size(); ++i) {
    const Json& j = (*rules)[i];
    const std::string path = core::index_path("rules", i);
    if (!j.is_object()) return reader.error(path, "expected an object");
    if (!j.contains("name") || !j.at("name").is_string() ||
        j.at("name").get<std::string>().empty()) {
      return reader.error(core::join_path(path, "name"), "expected a non-empty string");
    }
    std::string name = j.at("name").get<std::string>();
    if (!names.insert(name).second) {
      return reader.error(core::join_path(path, "name"),
                          "rule '" + name + "' is named twice (names must be unique)");
    }
    const RuleReader r{reader, mesh_names, std::string(source) + ": rule '" + name + "'"};
    DTPLAN_TRY(PinRule rule, r.rule(j, std::move(name)));
    out.rules.push_back(std::move(rule));
  }
  return out;
}

}  // namespace dtplan::strategy
