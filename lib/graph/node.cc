#include "graph/node.h"

#include <array>
#include <utility>

namespace dtplan::graph {
namespace {

template <class E, std::size_t N>
core::Result<E> parse_enum(const std::array<std::pair<std::string_view, E>, N>& names,
                           std::string_view text, std::string_view what, std::string_view kind) {
  std::string accepted;
  for (const auto& [name, value] : names) {
    if (name == text) return value;
    if (!accepted.empty()) accepted += ", ";
    accepted += name;
  }
  return core::Error::bad_input(std::string(what) + ": unknown " + std::string(kind) + " '" +
                                std::string(text) + "' (use " + accepted + ")");
}

constexpr std::array<std::pair<std::string_view, Phase>, 2> kPhases = {{
    {"forward", Phase::kForward},
    {"backward", Phase::kBackward},
}};

constexpr std::array<std::pair<std::string_view, Checkpoint>, 3> kCheckpoints = {{
    {"none", Checkpoint::kNone},
    {"save", Checkpoint::kSave},
    {"recompute", Checkpoint::kRecompute},
}};

}  // namespace

std::string_view phase_name(Phase phase) { return kPhases[static_cast<std::size_t>(phase)].first; }

core::Result<Phase> parse_phase(std::string_view text, std::string_view what) {
  return parse_enum(kPhases, text, what, "phase");
}

std::string_view checkpoint_name(Checkpoint checkpoint) {
  return kCheckpoints[static_cast<std::size_t>(checkpoint)].first;
}

core::Result<Checkpoint> parse_checkpoint(std::string_view text, std::string_view what) {
  return parse_enum(kCheckpoints, text, what, "checkpoint");
}

std::string node_label(std::string_view name) { return "node '" + std::string(name) + "'"; }

}  // namespace dtplan::graph
