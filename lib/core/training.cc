#include "core/training.h"

#include <array>
#include <string>
#include <utility>

namespace dtplan::core {
namespace {

constexpr std::array<std::pair<std::string_view, CheckpointPolicy>, 3> kPolicies = {{
    {"none", CheckpointPolicy::kNone},
    {"selective_op", CheckpointPolicy::kSelectiveOp},
    {"full", CheckpointPolicy::kFull},
}};

constexpr std::array<std::pair<std::string_view, GradSync>, 2> kSyncs = {{
    {"every_microbatch", GradSync::kEveryMicrobatch},
    {"last_microbatch", GradSync::kLastMicrobatch},
}};

constexpr std::array<std::pair<std::string_view, Float8Recipe>, 3> kRecipes = {{
    {"none", Float8Recipe::kNone},
    {"tensorwise", Float8Recipe::kTensorwise},
    {"rowwise", Float8Recipe::kRowwise},
}};

// The value named `text` in `table`, else an error listing the names.
template <class T, std::size_t N>
Result<T> parse_named(const std::array<std::pair<std::string_view, T>, N>& table,
                      std::string_view text, std::string_view what, std::string_view kind) {
  std::string names;
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].first == text) return table[i].second;
    names += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(table[i].first);
  }
  return Error::bad_input(std::string(what) + ": unknown " + std::string(kind) + " '" +
                          std::string(text) + "' (use " + names + ")");
}

}  // namespace

std::string_view checkpoint_policy_name(CheckpointPolicy policy) {
  return kPolicies[static_cast<std::size_t>(policy)].first;
}

Result<CheckpointPolicy> parse_checkpoint_policy(std::string_view text, std::string_view what) {
  return parse_named(kPolicies, text, what, "checkpoint policy");
}

std::string_view execution_name(Execution execution) {
  return execution == Execution::kCompiled ? "compiled" : "eager";
}

std::string_view float8_recipe_name(Float8Recipe recipe) {
  return kRecipes[static_cast<std::size_t>(recipe)].first;
}

Result<Float8Recipe> parse_float8_recipe(std::string_view text, std::string_view what) {
  return parse_named(kRecipes, text, what, "float8 recipe");
}

std::string_view grad_sync_name(GradSync sync) {
  return kSyncs[static_cast<std::size_t>(sync)].first;
}

Result<GradSync> parse_grad_sync(std::string_view text, std::string_view what) {
  return parse_named(kSyncs, text, what, "gradient sync");
}

}  // namespace dtplan::core
