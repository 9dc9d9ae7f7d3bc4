#include "verify_arg.h"

#include "number_arg.h"

namespace dtplan::cli {

void add_verify_flags(CLI::App& app, VerifyArgs& args) {
  app.add_option("--values", args.values,
                 "Verification data: float (random, checked within (C+4)u) or int "
                 "(integer-valued, checked exactly)")
      ->capture_default_str();
  add_number_option(app, "--seed", args.seed, "Seed of the verification data, in [0, 2^64-1]")
      ->capture_default_str();
}

core::Result<sim::VerifyOptions> verify_options(const VerifyArgs& args) {
  sim::VerifyOptions o;
  DTPLAN_TRY(o.values, sim::parse_value_kind(args.values, "--values"));
  o.seed = args.seed;
  return o;
}

Json verify_json(const sim::VerifyReport& r) {
  Json j;
  j["ranks"] = r.ranks;
  j["wrong_elements"] = r.wrong_elements;
  j["replicas_bitwise_equal"] = r.replicas_bitwise_equal;
  j["elements"] = r.elements;
  j["values"] = std::string(sim::value_kind_name(r.values));
  j["exact"] = r.exact;
  j["replica_sets"] = r.replica_sets;
  j["differing_replica_sets"] = r.differing_replica_sets;
  j["max_replica_variants"] = r.max_replica_variants;
  j["max_error"] = r.max_error;
  j["collectives"] = r.trace.empty() ? 0 : r.trace.back().call + 1;
  if (!r.first_wrong.empty()) j["first_wrong"] = r.first_wrong;
  return j;
}

std::string verify_line(const sim::VerifyReport& r) {
  std::string out = "# verify: " + sim::describe(r) + "\n";
  if (!r.first_wrong.empty()) out += "# first wrong: " + r.first_wrong + "\n";
  return out;
}

}  // namespace dtplan::cli
