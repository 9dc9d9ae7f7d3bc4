#include "sweep_resume.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "config_args.h"
#include "core/hash.h"
#include "core/strings.h"
#include "core/text_file.h"
#include "output.h"
#include "sweep/plan_files.h"
#include "sweep/sweep_io.h"
#include "version.h"

namespace dtplan::cli {

namespace {

// Options that change no result (outputs, threads, --resume itself).
bool fingerprinted(const std::string& name) {
  for (const char* skip :
       {"--csv", "--html", "--plans", "--json", "--quiet", "--threads", "--resume", "--help"}) {
    if (name == skip) return false;
  }
  return true;
}

// "fnv1a:<hex>" of the file a --model or --hardware value names; "" when it does not read (the
// sweep reports that itself).
std::string file_hash(ConfigKind kind, const std::string& value, const std::string& flag) {
  auto path = config_file_arg(kind, value, flag);
  if (!path.ok()) return "";
  auto text = core::read_text_file(*path, flag);
  if (!text.ok()) return "";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(core::fnv1a(*text)));  // NOLINT
  return std::string("fnv1a:") + hex;
}

}  // namespace

sweep::Fingerprint sweep_fingerprint(const CLI::App& app, const sweep::SweepSetup& setup) {
  sweep::Fingerprint fp{{"dtplan", kVersion}};
  const nlohmann::ordered_json header = sweep::sweep_json(sweep::SweepResult{setup, {}});
  for (const auto& [key, value] : header.items()) {
    if (key != "candidates" && key != "results") fp.push_back({key, value.dump()});
  }
  for (const CLI::Option* opt : app.get_options()) {
    const std::string name = opt->get_name();
    if (name.rfind("--", 0) != 0 || !fingerprinted(name)) continue;
    const std::string value =
        opt->count() > 0 ? core::join(opt->results(), ",") : opt->get_default_str();
    fp.push_back({name, value});
    if (name == "--model") fp.push_back({"model file", file_hash(ConfigKind::kModel, value, name)});
    if (name == "--hardware") {
      fp.push_back({"hardware file", file_hash(ConfigKind::kHardware, value, name)});
    }
  }
  return fp;
}

core::Result<SweepResume> open_sweep_resume(const std::string& dir, const CLI::App& app,
                                            const sweep::SweepSetup& setup,
                                            const std::vector<sweep::MeshCandidate>& candidates) {
  SweepResume r;
  if (dir.empty()) return r;
  DTPLAN_TRY(sweep::ResumeStore store,
             sweep::ResumeStore::prepare(dir, sweep_fingerprint(app, setup)));
  r.recorded.resize(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::string key = sweep::plan_file_name(candidates[i]);
    key.resize(key.size() - std::string_view(".json").size());
    DTPLAN_TRY(r.recorded[i], store.load(key));
    if (r.recorded[i]) ++r.resumed;
    r.keys.push_back(std::move(key));
  }
  r.store = std::move(store);
  return r;
}

core::Status record_point(const SweepResume& resume, const sweep::SweepProgress& progress) {
  if (!resume.store || progress.outcome == nullptr || !progress.outcome->error.empty()) return {};
  return resume.store->record(resume.keys[progress.index], *progress.outcome);
}

std::string resumed_line(const SweepResume& resume) {
  return "# resumed " + std::to_string(resume.resumed) + " of " +
         std::to_string(resume.recorded.size()) + " points from " + resume.store->dir() + "\n";
}

int report_failed_points(const sweep::SweepResult& result,
                         const std::vector<sweep::MeshCandidate>& candidates) {
  std::size_t failed = 0;
  const sweep::SweepRow* first = nullptr;
  std::size_t first_index = candidates.size();
  for (const sweep::SweepRow& row : result.rows) {
    if (row.error.empty()) continue;
    ++failed;
    if (first == nullptr) first = &row;
    for (std::size_t i = 0; i < first_index; ++i) {
      if (candidates[i] == row.mesh) {
        first_index = i;
        first = &row;
        break;
      }
    }
  }
  if (failed == 0) return 0;
  std::cerr << "dtplan sweep: error: " << failed << " of " << result.rows.size()
            << " points failed; first: " << sweep::candidate_label(first->mesh) << ": "
            << core::escape_controls(first->error) << "\n";
  return 3;
}

}  // namespace dtplan::cli
