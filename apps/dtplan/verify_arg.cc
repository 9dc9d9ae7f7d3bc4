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

std::string verify_line(const sim::VerifyReport& r) {
  std::string out = "# verify: " + sim::describe(r) + "\n";
  if (!r.first_wrong.empty()) out += "# first wrong: " + r.first_wrong + "\n";
  return out;
}

}  // namespace dtplan::cli
