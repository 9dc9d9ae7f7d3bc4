#include "redist/warnings.h"

#include <array>

namespace dtplan::redist {

namespace {

constexpr std::array<std::string_view, 5> kReasons = {"no_flattened_mesh", "uneven_tensor_shape",
                                                      "non_ascending_mesh_dims",
                                                      "divergent_replicas", "merge_costs_more"};

}  // namespace

std::string_view warning_reason_name(WarningReason reason) {
  return kReasons[static_cast<std::size_t>(reason)];
}

core::Result<WarningReason> parse_warning_reason(std::string_view text, std::string_view what) {
  for (std::size_t i = 0; i < kReasons.size(); ++i) {
    if (kReasons[i] == text) return static_cast<WarningReason>(i);
  }
  return core::Error::bad_input(std::string(what) + ": unknown warning reason '" +
                                std::string(text) +
                                "'; expected no_flattened_mesh, uneven_tensor_shape, "
                                "non_ascending_mesh_dims, divergent_replicas or merge_costs_more");
}

bool WarningSink::emit(std::string_view mesh_key, const Warning& w) {
  if (!seen_.emplace(std::string(mesh_key), w.mesh_dims, w.reason).second) return false;
  emitted_.push_back(w);
  return true;
}

}  // namespace dtplan::redist
