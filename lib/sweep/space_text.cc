#include "sweep/space_text.h"

#include <array>

#include "core/strings.h"

namespace dtplan::sweep {

namespace {

template <class T, class Text>
std::string list_text(const std::vector<T>& values, const Text& text) {
  std::vector<std::string> parts;
  for (const T& v : values) parts.push_back(text(v));
  return core::join(parts, ",");
}

std::string number(std::int64_t v) { return std::to_string(v); }

// "dp_shard x cp x tp (every degree)", "dp_replicate 1,2 x dp_shard x tp 4,8".
std::string roles_text(const CandidateOptions& o) {
  const std::array<std::pair<const char*, const std::vector<std::int64_t>*>, 4> roles = {{
      {"dp_replicate", &o.roles.dp_replicate},
      {"dp_shard", &o.roles.dp_shard},
      {"cp", &o.roles.cp},
      {"tp", &o.roles.tp},
  }};
  std::vector<std::string> parts;
  bool every = true;
  for (const auto& [name, list] : roles) {
    if (list->size() == 1 && list->front() == 1) continue;  // left out of every mesh
    if (list->empty()) {
      parts.emplace_back(name);
    } else {
      every = false;
      parts.push_back(std::string(name) + " " + list_text(*list, number));
    }
  }
  return core::join(parts, " x ") + (every ? " (every degree)" : "");
}

}  // namespace

std::string space_text(const SweepSetup& s) {
  const CandidateOptions& o = s.space;
  std::string out = roles_text(o);
  if (o.tp_across_nodes) {
    out += ", tp across nodes allowed";
  } else if (s.gpus_per_node > 0) {
    out += ", tp within a node of " + std::to_string(s.gpus_per_node);
    if (o.max_tp_per_node > 0 && o.max_tp_per_node < s.gpus_per_node) {
      out += " (at most " + std::to_string(o.max_tp_per_node) + ")";
    }
  }
  if (s.batch > 0) {
    out += "; batch " + (o.batches.empty() ? number(s.batch) : list_text(o.batches, number));
    out += "; grad-accum " +
           (o.grad_accums.empty() ? number(s.grad_accum) : list_text(o.grad_accums, number));
    out += "; checkpoint " + (o.checkpoints.empty()
                                  ? s.checkpoint
                                  : list_text(o.checkpoints, [](core::CheckpointPolicy p) {
                                      return std::string(core::checkpoint_policy_name(p));
                                    }));
  }
  out += "; plan " +
         list_text(o.parallelize, [](Parallelize p) { return std::string(parallelize_name(p)); });
  return out;
}

}  // namespace dtplan::sweep
