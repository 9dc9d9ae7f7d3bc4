#include "sweep/mesh_candidates.h"

#include <algorithm>
#include <array>

#include "core/limits.h"
#include "core/strings.h"

namespace dtplan::sweep {

namespace {

constexpr std::array<std::string_view, 4> kRoles = {"dp_replicate", "dp_shard", "cp", "tp"};
constexpr std::array<std::string_view, 4> kRoleFlags = {"--dp-replicate", "--dp-shard", "--cp",
                                                        "--tp"};

// The divisors of n, ascending.
std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> low;
  std::vector<std::int64_t> high;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

// The degrees tried for role `r`: the list given (sorted, unique, dividing the world) or every
// divisor; tp further by the node rule.
std::vector<std::int64_t> degrees(const CandidateOptions& o, std::size_t r) {
  const std::array<const std::vector<std::int64_t>*, 4> lists = {
      &o.roles.dp_replicate, &o.roles.dp_shard, &o.roles.cp, &o.roles.tp};
  std::vector<std::int64_t> out;
  for (std::int64_t d : divisors(o.world)) {
    const std::vector<std::int64_t>& asked = *lists[r];
    if (!asked.empty() && std::find(asked.begin(), asked.end(), d) == asked.end()) continue;
    if (kRoles[r] == "tp" && !o.tp_across_nodes && o.gpus_per_node > 0) {
      const std::int64_t cap = o.max_tp_per_node > 0 ? o.max_tp_per_node : o.gpus_per_node;
      if (d > cap || o.gpus_per_node % d != 0) continue;
    }
    out.push_back(d);
  }
  return out;
}

std::optional<mesh::FlattenSpec> flatten_of(const std::vector<std::string>& names,
                                            const std::vector<std::string>& wanted,
                                            std::string name) {
  std::vector<std::string> dims;
  for (const std::string& n : names) {
    if (std::find(wanted.begin(), wanted.end(), n) != wanted.end()) dims.push_back(n);
  }
  if (dims.size() < 2) return std::nullopt;
  return mesh::FlattenSpec{std::move(dims), std::move(name)};
}

std::vector<mesh::FlattenSpec> user_flattens(const std::vector<std::string>& names) {
  std::vector<mesh::FlattenSpec> out;
  const auto add = [&](std::optional<mesh::FlattenSpec> f) {
    if (!f) return;
    for (const mesh::FlattenSpec& e : out) {
      if (e.dims == f->dims) return;
    }
    out.push_back(std::move(*f));
  };
  add(flatten_of(names, {"dp_replicate", "dp_shard"}, "dp"));
  add(flatten_of(names, {"dp_shard", "cp"}, "dp_shard_cp"));
  add(flatten_of(names, {"dp_replicate", "dp_shard", "cp"}, "dp_cp"));
  add(flatten_of(names, names, ""));
  return out;
}

core::Status check_options(const CandidateOptions& options) {
  if (options.world < 1) {
    return core::Error::bad_input("--world: " + std::to_string(options.world) +
                                  " is not a positive rank count");
  }
  // The limit of every mesh: no mesh of a larger world can be built (and the divisor search
  // stays trivially fast).
  if (options.world > core::kMaxRanks) {
    return core::Error::unsupported(
        "--world: " + std::to_string(options.world) + " is more than the supported maximum of " +
        std::to_string(core::kMaxRanks) + " ranks" + core::limit_note("kMaxRanks"));
  }
  if (options.dims.empty()) return core::Error::bad_input("--dims: no dim count given");
  for (std::int32_t k : options.dims) {
    if (k < 1 || k > 4) {
      return core::Error::bad_input("--dims: " + std::to_string(k) +
                                    " is not a mesh dim count in [1, 4]");
    }
  }
  const std::array<const std::vector<std::int64_t>*, 4> lists = {
      &options.roles.dp_replicate, &options.roles.dp_shard, &options.roles.cp, &options.roles.tp};
  for (std::size_t r = 0; r < lists.size(); ++r) {
    for (std::int64_t d : *lists[r]) {
      if (d < 1) {
        return core::Error::bad_input(std::string(kRoleFlags[r]) + ": " + std::to_string(d) +
                                      " is not a positive degree");
      }
    }
  }
  if (options.parallelize.empty()) {
    return core::Error::bad_input("--parallelize: no plan given");
  }
  return core::Status{};
}

// The meshes, without the training choices.
std::vector<MeshCandidate> meshes(const CandidateOptions& o,
                                  const std::vector<std::int32_t>& dims) {
  std::array<std::vector<std::int64_t>, 4> tried;
  for (std::size_t r = 0; r < 4; ++r) tried[r] = degrees(o, r);
  std::vector<MeshCandidate> out;
  const auto tp_allowed = [&](std::int64_t tp) {
    return std::binary_search(tried[3].begin(), tried[3].end(), tp);
  };
  for (std::int32_t k : dims) {
    for (std::int64_t rep : tried[0]) {
      for (std::int64_t shard : tried[1]) {
        if ((o.world / rep) % shard != 0) continue;
        for (std::int64_t cp : tried[2]) {
          if ((o.world / rep / shard) % cp != 0) continue;
          const std::int64_t tp = o.world / rep / shard / cp;
          if (!tp_allowed(tp)) continue;
          const std::array<std::int64_t, 4> deg = {rep, shard, cp, tp};
          MeshCandidate c;
          for (std::size_t r = 0; r < 4; ++r) {
            if (deg[r] < 2) continue;
            c.shape.push_back(deg[r]);
            c.names.emplace_back(kRoles[r]);
          }
          if (c.shape.empty()) {  // the world of one rank
            c.shape = {1};
            c.names = {"dp_shard"};
          }
          if (static_cast<std::int32_t>(c.shape.size()) != k) continue;
          if (o.flatten == FlattenPolicy::kUser) c.flatten = user_flattens(c.names);
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

// What the constraints were, for the error when no mesh meets them.
std::string constraints_text(const CandidateOptions& o, const std::vector<std::int32_t>& dims) {
  std::vector<std::string> counts;
  for (std::int32_t k : dims) counts.push_back(std::to_string(k));
  std::string out = "--world: " + std::to_string(o.world) + " has no split into " +
                    core::join(counts, " or ") + " dims";
  std::vector<std::string> roles;
  const std::array<const std::vector<std::int64_t>*, 4> lists = {
      &o.roles.dp_replicate, &o.roles.dp_shard, &o.roles.cp, &o.roles.tp};
  for (std::size_t r = 0; r < 4; ++r) {
    if (lists[r]->empty() || *lists[r] == std::vector<std::int64_t>{1}) continue;
    std::vector<std::string> v;
    for (std::int64_t d : *lists[r]) v.push_back(std::to_string(d));
    roles.push_back(std::string(kRoles[r]) + " in {" + core::join(v, ",") + "}");
  }
  if (!o.tp_across_nodes && o.gpus_per_node > 0) {
    roles.push_back("tp within a node of " + std::to_string(o.gpus_per_node) + " GPUs");
  }
  if (!roles.empty()) out += " with " + core::join(roles, ", ");
  return out;
}

}  // namespace

std::string_view parallelize_name(Parallelize p) {
  return p == Parallelize::kTorchtitan ? "torchtitan" : "optimal";
}

core::Result<Parallelize> parse_parallelize(std::string_view text, std::string_view what) {
  if (text == "optimal") return Parallelize::kOptimal;
  if (text == "torchtitan") return Parallelize::kTorchtitan;
  return core::Error::bad_input(std::string(what) + ": '" + std::string(text) +
                                "' is not one of optimal, torchtitan");
}

core::Result<std::vector<MeshCandidate>> enumerate_candidates(const CandidateOptions& options) {
  DTPLAN_CHECK(check_options(options));
  std::vector<std::int32_t> dims = options.dims;
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  const std::vector<MeshCandidate> shapes = meshes(options, dims);
  if (shapes.empty()) return core::Error::unsupported(constraints_text(options, dims));

  using OptInt = std::optional<std::int64_t>;
  using OptCkpt = std::optional<core::CheckpointPolicy>;
  // The list without repeats, in the order given; {nullopt} when empty.
  const auto or_default = []<typename T>(const std::vector<T>& v) {
    std::vector<std::optional<T>> out;
    for (const T& x : v) {
      if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    }
    if (out.empty()) out.push_back(std::nullopt);
    return out;
  };
  std::vector<Parallelize> plans;
  for (Parallelize p : options.parallelize) {
    if (std::find(plans.begin(), plans.end(), p) == plans.end()) plans.push_back(p);
  }
  const std::vector<OptInt> batches = or_default(options.batches);
  const std::vector<OptInt> accums = or_default(options.grad_accums);
  const std::vector<OptCkpt> checkpoints = or_default(options.checkpoints);
  std::vector<MeshCandidate> out;
  for (const MeshCandidate& m : shapes) {
    for (const OptInt& batch : batches) {
      for (const OptInt& accum : accums) {
        for (const OptCkpt& ckpt : checkpoints) {
          for (Parallelize p : plans) {
            MeshCandidate c = m;
            c.batch = batch;
            c.grad_accum = accum;
            c.checkpoint = ckpt;
            c.parallelize = p;
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

std::string candidate_text(const MeshCandidate& candidate) {
  std::string out = shape_label(candidate.shape) + " (" + core::join(candidate.names, ",") + ")";
  if (candidate.batch) out += " batch " + std::to_string(*candidate.batch);
  if (candidate.grad_accum) out += " grad-accum " + std::to_string(*candidate.grad_accum);
  if (candidate.checkpoint) {
    out += " checkpoint " + std::string(core::checkpoint_policy_name(*candidate.checkpoint));
  }
  if (candidate.parallelize != Parallelize::kOptimal) {
    out += " " + std::string(parallelize_name(candidate.parallelize));
  }
  return out;
}

std::string shape_label(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

mesh::MeshConfig mesh_config(const MeshCandidate& candidate, const std::string& hardware) {
  mesh::MeshConfig config;
  config.shape = candidate.shape;
  config.names = candidate.names;
  config.flatten = candidate.flatten;
  config.hardware = hardware;
  return config;
}

std::int64_t role_degree(const MeshCandidate& candidate, std::string_view role) {
  for (std::size_t i = 0; i < candidate.names.size(); ++i) {
    if (candidate.names[i] == role) return candidate.shape[i];
  }
  return 1;
}

bool tp_within_node(const MeshCandidate& candidate, std::int64_t gpus_per_node) {
  const std::int64_t tp = role_degree(candidate, "tp");
  return tp == 1 || (gpus_per_node >= 1 && gpus_per_node % tp == 0);
}

}  // namespace dtplan::sweep
