#include "sweep/resume_store.h"

#include <filesystem>
#include <system_error>

#include "core/output_file.h"
#include "core/text_file.h"
#include "sweep/sweep_io.h"

namespace dtplan::sweep {

namespace {

namespace fs = std::filesystem;

const FingerprintField* find_field(const Fingerprint& fp, const std::string& name) {
  for (const FingerprintField& f : fp) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

core::Status make_dir(const fs::path& dir, const std::string& what) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) {
    return core::Error::bad_input(what + ": " + (ec ? ec.message() : "not a directory"));
  }
  return {};
}

}  // namespace

std::string first_difference(const Fingerprint& recorded, const Fingerprint& wanted) {
  for (const FingerprintField& w : wanted) {
    const FingerprintField* r = find_field(recorded, w.name);
    if (r == nullptr || r->value != w.value) return w.name;
  }
  for (const FingerprintField& r : recorded) {
    if (find_field(wanted, r.name) == nullptr) return r.name;
  }
  return "";
}

core::Result<ResumeStore> ResumeStore::prepare(const std::string& dir,
                                               const Fingerprint& fingerprint,
                                               const std::string& flag) {
  const std::string what = flag + " " + dir;
  DTPLAN_CHECK(make_dir(fs::path(dir) / "points", what));
  const std::string path = (fs::path(dir) / "fingerprint.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    DTPLAN_CHECK(core::write_output_file(path, fingerprint_to_string(fingerprint), flag));
  } else {
    DTPLAN_TRY(const std::string text, core::read_text_file(path, flag));
    DTPLAN_TRY(const Fingerprint recorded, fingerprint_from_string(text, path));
    const std::string field = first_difference(recorded, fingerprint);
    if (!field.empty()) {
      return core::Error::bad_input(what + ": recorded for a different sweep (" + field + ")");
    }
  }
  return ResumeStore(dir, flag);
}

std::string ResumeStore::point_path(const std::string& key) const {
  return (fs::path(dir_) / "points" / (key + ".json")).string();
}

core::Result<std::optional<PointOutcome>> ResumeStore::load(const std::string& key) const {
  const std::string path = point_path(key);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::optional<PointOutcome>{};
  DTPLAN_TRY(const std::string text, core::read_text_file(path, flag_));
  DTPLAN_TRY(PointOutcome outcome, point_outcome_from_string(text, flag_ + " " + path));
  return std::optional<PointOutcome>(std::move(outcome));
}

core::Status ResumeStore::record(const std::string& key, const PointOutcome& outcome) const {
  return core::write_output_file(point_path(key), point_outcome_to_string(outcome) + "\n", flag_);
}

}  // namespace dtplan::sweep
