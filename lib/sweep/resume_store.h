#pragma once
// ResumeStore: the directory of `dtplan sweep --resume DIR`, where a sweep records each point as
// it finishes so that a sweep killed half-way resumes without recomputing them.
//
//   DIR/fingerprint.json   what the sweep was (its setup and every option that changes results),
//                          written when the directory is first used
//   DIR/points/KEY.json    one finished point's outcome (sweep_io.h), written whole or not at
//                          all (a temporary file renamed over it), named by a key the caller
//                          gives each point (unique within a sweep)
//
//   auto store = ResumeStore::prepare("out/resume", {{"model", "llama3-8b"}, {"world", "64"}});
//   store->record("8x8_dp-tp", outcome);
//   store->load("8x8_dp-tp").value() == outcome
//
// Opening a directory recorded for another fingerprint is an error that names the first field
// that differs, so a resumed sweep never mixes points of different sweeps. Only finished points
// are recorded; a failed point (PointOutcome::error) is not, so a rerun retries it.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "sweep/point_runner.h"

namespace dtplan::sweep {

struct FingerprintField {
  std::string name;
  std::string value;
  bool operator==(const FingerprintField&) const = default;
};
using Fingerprint = std::vector<FingerprintField>;

// The name of the first field where `recorded` and `wanted` differ, in `wanted`'s order (then
// fields only `recorded` has); "" when they are equal.
std::string first_difference(const Fingerprint& recorded, const Fingerprint& wanted);

class ResumeStore {
 public:
  // Opens `dir` (created with its parents if missing) for a sweep of `fingerprint`, writing its
  // fingerprint file when there is none. `flag` names the option in errors ("--resume").
  // Errors (kBadInput): "--resume DIR: recorded for a different sweep (FIELD)", a directory that
  // cannot be created, a fingerprint file that does not read back.
  static core::Result<ResumeStore> prepare(const std::string& dir, const Fingerprint& fingerprint,
                                           const std::string& flag = "--resume");

  // The recorded outcome of point `key`; nullopt when none is recorded. Errors: kBadInput naming
  // the file when it is there but does not read back.
  [[nodiscard]] core::Result<std::optional<PointOutcome>> load(const std::string& key) const;

  // Records point `key` (replacing a record there). @pre outcome.error is empty.
  [[nodiscard]] core::Status record(const std::string& key, const PointOutcome& outcome) const;

  // DIR/points/KEY.json.
  [[nodiscard]] std::string point_path(const std::string& key) const;
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  ResumeStore(std::string dir, std::string flag) : dir_(std::move(dir)), flag_(std::move(flag)) {}
  std::string dir_;
  std::string flag_;
};

// The fingerprint file's text, and back (resume_store_io.cc). Errors: kBadInput naming `source`.
std::string fingerprint_to_string(const Fingerprint& fingerprint);
core::Result<Fingerprint> fingerprint_from_string(std::string_view text, std::string_view source);

}  // namespace dtplan::sweep
