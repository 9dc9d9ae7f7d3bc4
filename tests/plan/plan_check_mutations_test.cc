// The generic test of plans read back (plan_check.h, redist/redist_plan_check.h): every number
// and string of a valid whole-model plan and of a valid redistribution plan is mutated in turn
// (x1000, negated, +1, 1e308, 2^62, null, "", "x", a placement S(9)), and each mutated document
// is read and re-priced as `dtplan simulate` and `dtplan replay` do. Each mutation must be
//   - refused (kBadInput) naming the field, an enclosing field, or the field that cross-checks it
//     (kCrossChecks: a sum or a derived figure that the mutation breaks), or
//   - harmless: the plan read back equals the unmutated one (a figure that normalises, 0 x 1000),
//   - or allowed by kAllowed, each entry with its reason (a field that is the plan's only record
//     of what it holds, such as a name).
// Nothing else may be accepted: a plan edited by hand never simulates as something else.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "graph/model_io.h"
#include "placement/placement_text.h"
#include "plan/plan_check.h"
#include "plan/plan_io.h"
#include "redist/redist_plan_check.h"
#include "redist/redist_plan_io.h"
#include "support/cli.h"
#include "support/placement_specs.h"
#include "support/profiles.h"
#include "support/redist_support.h"
#include "support/selection_testing.h"

namespace dtplan::plan {
namespace {

using Json = nlohmann::ordered_json;

enum class Mutation : std::uint8_t {
  kTimes1000,
  kNegate,
  kPlusOne,
  kHuge,    // 1e308
  kInt62,   // 2^62
  kNull,    // what JSON writers make of a NaN
  kEmpty,   // ""
  kJunk,    // "x"
  kShard9,  // the first placement of the text made S(9)
};

const char* mutation_name(Mutation m) {
  constexpr const char* kNames[] = {"x1000", "negate", "+1",    "1e308", "2^62",
                                    "null",  "\"\"",   "\"x\"", "S(9)"};
  return kNames[static_cast<int>(m)];
}

// A field path with its indices as [*]: "ops[3].shape[0]" -> "ops[*].shape[*]".
std::string pattern_of(const std::string& path) {
  static const std::regex index(R"(\[[0-9]+\])");
  return std::regex_replace(path, index, "[*]");
}

// Fields a mutation may leave accepted, and why.
struct Allowed {
  std::string pattern;
  std::vector<Mutation> mutations;  // empty: every mutation that reads back
  const char* reason;
};

const std::vector<Allowed>& allowed() {
  using M = Mutation;
  static const std::vector<Allowed> kAllowed = {
      {"model", {M::kJunk}, "the model's name, a label printed as read"},
      {"ops[*].name", {M::kJunk}, "an op's name, a label (checked: non-empty, unique)"},
      {"ops[*].op",
       {M::kJunk},
       "an op's kind: FX-exported graphs name any target, so no vocabulary can check it "
       "(checked: non-empty; graph inputs are placeholders without inputs)"},
      {"ops[*].role",
       {M::kEmpty},
       "\"\" (no role) is valid for any op (checked: the vocabulary; graph-input roles only on "
       "placeholders)"},
      {"ops[*].layer",
       {M::kNegate, M::kPlusOne},
       "an op's layer: the plan is its only record (checked: -1 or in [0, layers), and layers "
       "is their count)"},
      {"ops[*].shape[*]",
       {M::kTimes1000, M::kPlusOne},
       "the output shape of an op that no redistribution reads: the plan is its only record "
       "(checked: valid with the op's placements; a shape a redistribution reads must match)"},
      {"ops[*].inputs[*]",
       {M::kPlusOne},
       "the graph's edges: the plan is their only record (checked: earlier ops, and the "
       "strategy's input placements met by the producer or by a redistribution)"},
      {"solver.time_s", {}, "the solver's record of its run; nothing is derived from it"},
      {"solver.objective_us", {}, "the solver's record of its run; nothing is derived from it"},
      {"solver.lower_bound_us", {}, "the solver's record of its run; nothing is derived from it"},
      {"solver.name", {M::kJunk, M::kEmpty}, "the solver's record of its run, a label"},
      {"solver.stop_reason", {M::kJunk, M::kEmpty}, "the solver's record of its run, a label"},
      {"memory.limit_bytes",
       {M::kTimes1000, M::kPlusOne, M::kInt62},
       "the --memory-limit the plan was made under, a record"},
      {"mesh.names[*]", {M::kJunk}, "a mesh dim's name, a label (the layouts define the mesh)"},
      {"mesh.ranks[*]",
       {M::kTimes1000, M::kPlusOne},
       "which ranks the mesh holds: any distinct ranks form a mesh (checked: distinct, in "
       "[0, kMaxRanks), and every step's price on the groups they form)"},
      {"mesh.flattened[*].name",
       {M::kJunk},
       "a flattened mesh no step runs on: its name is a label (checked against the steps that "
       "run on it)"},
      {"warnings[*].message",
       {M::kJunk},
       "the text of advice (in a whole-model plan, only the lowering's own: those of the "
       "redistributions must match), printed as read"},
      {"redistributions[*].warnings[*].message",
       {M::kJunk},
       "advice of a redistribution that the plan's warnings do not list (they list the first "
       "per mesh dims and reason, which must match); nothing prints it"},
      {"warnings[*].mesh_dims[*]",
       {M::kPlusOne},
       "the dims of advice (checked: ascending, distinct, on the mesh, once per reason; in a "
       "whole-model plan those of the redistributions must match)"},
  };
  return kAllowed;
}

// Fields whose mutation another field catches: the figure derived from both, or the field that
// refers to it.
const std::vector<std::pair<std::string, std::vector<std::string>>>& cross_checks() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kCrossChecks = {
      {"ops[*].compute_us", {"cost.compute_us"}},
      {"training.grad_accum", {"cost.compute_us"}},
      {"ops[*].options", {"strategies"}},
      {"ops[*].shape[*]", {"redistributions[*].tensor.shape"}},
      {"ops[*].placements", {"redistributions[*].src", "ops[*]"}},
      {"ops[*].strategy", {"redistributions[*].dst"}},
      {"ops[*].inputs[*]", {"redistributions[*]"}},
      {"memory.parameter_bytes", {"memory.peak_bytes_per_rank"}},
      {"memory.gradient_bytes", {"memory.peak_bytes_per_rank"}},
      {"memory.optimizer_bytes", {"memory.peak_bytes_per_rank"}},
      {"memory.activation_bytes", {"memory.peak_bytes_per_rank"}},
      {"redistributions[*].tensor.shape[*]", {"redistributions[*].steps[*].bytes"}},
      {"redistributions[*].steps[*].cost_us", {"redistributions[*].total_cost_us"}},
      {"tensor.shape[*]", {"steps[*].bytes"}},
      {"steps[*].cost_us", {"total_cost_us"}},
      {"mesh.ranks[*]", {"redistributions[*].steps[*].cost_us", "steps[*].cost_us"}},
      {"mesh.flattened[*].name", {"redistributions[*].steps[*]", "steps[*]"}},
      {"redistributions[*].warnings[*].message", {"warnings[*]"}},
      {"redistributions[*].warnings[*].mesh_dims[*]", {"warnings[*]"}},
  };
  return kCrossChecks;
}

bool allowed(const std::string& pattern, Mutation m) {
  for (const Allowed& a : allowed()) {
    if (a.pattern != pattern) continue;
    if (a.mutations.empty()) return true;
    for (Mutation x : a.mutations) {
      if (x == m) return true;
    }
  }
  return false;
}

// Whether `named` is `path`, a field enclosing it, or a field that cross-checks it.
bool names_field(const std::string& named, const std::string& path) {
  if (path == named) return true;
  if (path.starts_with(named) && (path[named.size()] == '.' || path[named.size()] == '[')) {
    return true;
  }
  const std::string pattern = pattern_of(path);
  const std::string named_pattern = pattern_of(named);
  for (const auto& [field, checkers] : cross_checks()) {
    if (field != pattern) continue;
    for (const std::string& c : checkers) {
      if (c == named_pattern) return true;
    }
  }
  return false;
}

std::optional<Json> mutate(const Json& v, Mutation m) {
  if (v.is_number()) {
    const bool integer = v.is_number_integer();
    const double d = v.get<double>();
    switch (m) {
      case Mutation::kTimes1000:
        if (integer && std::abs(d) > 9e15) return std::nullopt;
        return integer ? Json(v.get<std::int64_t>() * 1000) : Json(d * 1000);
      case Mutation::kNegate:
        if (d == 0) return integer ? Json(-1) : Json(-1.0);
        return integer ? Json(-v.get<std::int64_t>()) : Json(-d);
      case Mutation::kPlusOne:
        return integer ? Json(v.get<std::int64_t>() + 1) : Json(d + 1);
      case Mutation::kHuge:
        return Json(1e308);
      case Mutation::kInt62:
        return Json(std::int64_t{1} << 62);
      case Mutation::kNull:
        return Json(nullptr);
      default:
        return std::nullopt;
    }
  }
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  switch (m) {
    case Mutation::kEmpty:
      return s.empty() ? std::nullopt : std::optional<Json>(Json(""));
    case Mutation::kJunk:
      return Json("x");
    case Mutation::kNull:
      return Json(nullptr);
    case Mutation::kShard9: {
      auto list = placement::parse_placement_list(s, "text");
      if (list.ok()) {
        list->placements[0] = placement::Placement::shard(9);
        list->order_positions[0] = -1;
        return Json(placement::format_placement_list(*list));
      }
      static const std::regex shard(R"(S\([0-9]+)");
      if (!std::regex_search(s, shard)) return std::nullopt;
      return Json(std::regex_replace(s, shard, "S(9", std::regex_constants::format_first_only));
    }
    default:
      return std::nullopt;
  }
}

// A document as compact text with the place of every number and string in it, so that a
// mutated document is the text with one value replaced (what Json::dump would give).
struct Leaf {
  std::string path;
  Json value;
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct Doc {
  std::string text;
  std::vector<Leaf> leaves;
};

void serialize(const Json& j, const std::string& path, Doc& doc) {
  if (j.is_object()) {
    doc.text += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) doc.text += ',';
      first = false;
      doc.text += Json(it.key()).dump() + ':';
      serialize(it.value(), path.empty() ? it.key() : path + "." + it.key(), doc);
    }
    doc.text += '}';
  } else if (j.is_array()) {
    doc.text += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i > 0) doc.text += ',';
      serialize(j[i], path + "[" + std::to_string(i) + "]", doc);
    }
    doc.text += ']';
  } else {
    const std::size_t begin = doc.text.size();
    doc.text += j.dump();
    if (j.is_number() || j.is_string()) doc.leaves.push_back({path, j, begin, doc.text.size()});
  }
}

// The field a kBadInput error of "plan.json" names, or "" for another error.
std::string named_field(const core::Error& e) {
  const std::string prefix = "plan.json: field '";
  if (e.kind != core::ErrorKind::kBadInput || !e.message.starts_with(prefix)) return "";
  const std::size_t end = e.message.find("': ", prefix.size());
  return end == std::string::npos ? "" : e.message.substr(prefix.size(), end - prefix.size());
}

struct Tally {
  int refused = 0;
  int harmless = 0;
  int allowed = 0;
};

// Every mutation of every leaf of `good`, read back by `read` (a plan's reader and re-pricing, as
// the commands run them): refused naming the field, harmless, or allowed.
template <class Plan, class Read>
Tally run_mutations(const Json& good, const Read& read) {
  Doc doc;
  serialize(good, "", doc);
  REQUIRE(doc.text == good.dump());
  core::Result<Plan> base = read(doc.text);
  REQUIRE_MESSAGE(base.ok(), (base.ok() ? std::string() : base.error().message));
  Tally tally;
  for (const Leaf& leaf : doc.leaves) {
    for (int k = 0; k <= static_cast<int>(Mutation::kShard9); ++k) {
      const auto m = static_cast<Mutation>(k);
      const std::optional<Json> mutated = mutate(leaf.value, m);
      if (!mutated || *mutated == leaf.value) continue;
      const std::string text =
          doc.text.substr(0, leaf.begin) + mutated->dump() + doc.text.substr(leaf.end);
      core::Result<Plan> r = read(text);
      INFO(leaf.path << " " << std::string(mutation_name(m)) << ": " << leaf.value.dump() << " -> "
                     << mutated->dump());
      if (!r.ok()) {
        CHECK_MESSAGE(names_field(named_field(r.error()), leaf.path), r.error().message);
        ++tally.refused;
      } else if (*r == *base) {
        ++tally.harmless;
      } else {
        CHECK_MESSAGE(allowed(pattern_of(leaf.path), m), "accepted with a different result");
        ++tally.allowed;
      }
    }
  }
  return tally;
}

// The FX-exported sample graph (tests/data/fx_export_sample.json: getitem, FX targets, two
// layers) planned on `ctx` as `dtplan plan` plans it.
plan::Plan fx_plan(const redist::MeshContext& ctx) {
  auto model = graph::load_model(testing::source_path("tests/data/fx_export_sample.json"));
  REQUIRE(model.ok());
  if (model->graph.name().empty()) model->graph.set_name(model->name);
  return strategy::testing::plan_or_fail(model->graph, ctx, {}).plan;
}

const cost::HardwareProfile& h100() {
  static const cost::HardwareProfile profile = testing::profile("h100-dgx");
  return profile;
}

core::Result<Plan> read_model(const std::string& text) {
  DTPLAN_TRY(Plan p, read_plan_json(text, "plan.json"));
  if (auto s = check_plan_prices(p, h100()); !s.ok()) {
    return s.error().with_context("plan.json");
  }
  return p;
}

core::Result<redist::RedistPlan> read_redist(const std::string& text) {
  DTPLAN_TRY(redist::RedistPlan p, redist::read_plan_json(text, "plan.json"));
  if (auto s = redist::check_plan_prices(p, h100()); !s.ok()) {
    return s.error().with_context("plan.json");
  }
  return p;
}

TEST_CASE("plan read-back mutations: whole-model plans") {
  // On (2,2) without a flattened mesh (a no_flattened_mesh warning), and on (2,2,2) with A_C
  // flattened (merged steps).
  for (const Plan& plan :
       {fx_plan(strategy::testing::context({2, 2}, {"dp", "tp"})),
        fx_plan(strategy::testing::context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}))}) {
    REQUIRE_FALSE(plan.redistributions.empty());
    const Tally t = run_mutations<Plan>(plan_json(plan), read_model);
    MESSAGE(t.refused << " refused, " << t.harmless << " harmless, " << t.allowed << " allowed");
    CHECK(t.refused > 1000);
  }
}

TEST_CASE("plan read-back mutations: redistribution plans") {
  struct Request {
    const char* src;
    const char* dst;
    redist::PlannerKind planner;
    redist::CostModelKind model;
  };
  using redist::CostModelKind;
  using redist::PlannerKind;
  // A merged reduce_scatter; two all_reduces a missing flattened mesh keeps apart (a warning); a
  // merged sum+avg reduction (avg_scale 2); shard orders through the min-cost planner; local
  // chunks; the dtensor cost model.
  const Request requests[] = {
      {"P(sum),R,P(sum)", "S(0),R,S(0)", PlannerKind::kAuto, CostModelKind::kNccl},
      {"R,P(sum),P(sum)", "R,R,R", PlannerKind::kAuto, CostModelKind::kNccl},
      {"P(avg),R,P(sum)", "R,R,R", PlannerKind::kAuto, CostModelKind::kNccl},
      {"S(0)[1],R,S(0)[0]", "R,S(1),R", PlannerKind::kMinCost, CostModelKind::kNccl},
      {"R,R,R", "S(0),S(1),R", PlannerKind::kGreedy, CostModelKind::kDTensor},
  };
  for (const Request& q : requests) {
    auto planner = testing::make_planner(
        testing::mesh_context({2, 2, 2}, {"A", "B", "C"}, {{"A", "C"}}), q.model);
    auto plan =
        planner->plan_uncached(testing::spec_of({16, 8}, q.src, {2, 2, 2}),
                               testing::spec_of({16, 8}, q.dst, {2, 2, 2}), {q.planner, true});
    REQUIRE(plan.ok());
    INFO(std::string(q.src) << " -> " << std::string(q.dst));
    const Tally t = run_mutations<redist::RedistPlan>(redist::plan_json(*plan), read_redist);
    MESSAGE(t.refused << " refused, " << t.harmless << " harmless, " << t.allowed << " allowed");
    CHECK(t.refused > 100);
  }
}

}  // namespace
}  // namespace dtplan::plan
