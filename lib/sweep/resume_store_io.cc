#include <nlohmann/json.hpp>

#include "core/json_io.h"
#include "sweep/resume_store.h"

namespace dtplan::sweep {

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kFormat = "dtplan sweep --resume 1";

}  // namespace

std::string fingerprint_to_string(const Fingerprint& fingerprint) {
  Json fields = Json::object();
  for (const FingerprintField& f : fingerprint) fields[f.name] = f.value;
  Json doc;
  doc["format"] = kFormat;
  doc["fields"] = std::move(fields);
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

core::Result<Fingerprint> fingerprint_from_string(std::string_view text, std::string_view source) {
  DTPLAN_TRY(const Json doc, core::parse_json(text, source));
  const core::JsonReader r(source);
  DTPLAN_TRY(const Json* format, r.get(doc, "format", ""));
  DTPLAN_TRY(const std::string f, r.string(*format, "format"));
  if (f != kFormat) return r.error("format", "expected \"" + std::string(kFormat) + "\"");
  DTPLAN_TRY(const Json* fields, r.get(doc, "fields", ""));
  if (!fields->is_object()) return r.error("fields", "expected an object");
  Fingerprint out;
  for (const auto& [name, value] : fields->items()) {
    DTPLAN_TRY(std::string v, r.string(value, core::join_path("fields", name)));
    out.push_back({name, std::move(v)});
  }
  return out;
}

}  // namespace dtplan::sweep
