#include "sweep/mesh_candidates.h"

#include <algorithm>
#include <cassert>

#include "core/limits.h"
#include "core/strings.h"

namespace dtplan::sweep {

namespace {

// The divisors of n that are >= 2, ascending.
std::vector<std::int64_t> divisors_from_two(std::int64_t n) {
  std::vector<std::int64_t> low;
  std::vector<std::int64_t> high;
  for (std::int64_t d = 2; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  std::reverse(high.begin(), high.end());
  low.insert(low.end(), high.begin(), high.end());
  if (n >= 2) low.push_back(n);
  return low;
}

// Appends every ordered factorization of n into `left` factors >= 2, prefixed by `prefix`, in
// lexicographic order.
void factorize(std::int64_t n, std::int32_t left, std::vector<std::int64_t>& prefix,
               std::vector<std::vector<std::int64_t>>& out) {
  if (left == 1) {
    if (n < 2) return;
    prefix.push_back(n);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (std::int64_t d : divisors_from_two(n)) {
    if (n / d < 2) break;
    prefix.push_back(d);
    factorize(n / d, left - 1, prefix, out);
    prefix.pop_back();
  }
}

std::vector<mesh::FlattenSpec> user_flattens(const std::vector<std::string>& names) {
  std::vector<mesh::FlattenSpec> out;
  if (names.size() < 2) return out;
  // Data-parallel dims: every dim but the innermost (tp).
  const std::vector<std::string> data(names.begin(), names.end() - 1);
  if (data.size() >= 2) out.push_back({data, ""});
  out.push_back({names, ""});
  return out;
}

}  // namespace

std::vector<std::string> role_names(std::int32_t k) {
  assert(k >= 1 && k <= 3);
  switch (k) {
    case 1:
      return {"dp"};
    case 2:
      return {"dp", "tp"};
    default:
      return {"dp", "cp", "tp"};
  }
}

core::Result<std::vector<MeshCandidate>> enumerate_candidates(const CandidateOptions& options) {
  if (options.world < 1) {
    return core::Error::bad_input("--world: " + std::to_string(options.world) +
                                  " is not a positive rank count");
  }
  // The limit of every mesh: no mesh of a larger world can be built (and the divisor search
  // below stays trivially fast).
  if (options.world > core::kMaxRanks) {
    return core::Error::unsupported(
        "--world: " + std::to_string(options.world) + " is more than the supported maximum of " +
        std::to_string(core::kMaxRanks) + " ranks" + core::limit_note("kMaxRanks"));
  }
  if (options.dims.empty()) return core::Error::bad_input("--dims: no dim count given");
  std::vector<std::int32_t> dims = options.dims;
  for (std::int32_t k : dims) {
    if (k < 1 || k > 3) {
      return core::Error::bad_input("--dims: " + std::to_string(k) +
                                    " is not a mesh dim count in [1, 3]");
    }
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());

  std::vector<MeshCandidate> out;
  for (std::int32_t k : dims) {
    std::vector<std::vector<std::int64_t>> shapes;
    if (k == 1) {
      shapes.push_back({options.world});
    } else {
      std::vector<std::int64_t> prefix;
      factorize(options.world, k, prefix, shapes);
    }
    for (std::vector<std::int64_t>& shape : shapes) {
      MeshCandidate c{std::move(shape), role_names(k), {}};
      if (options.flatten == FlattenPolicy::kUser) c.flatten = user_flattens(c.names);
      out.push_back(std::move(c));
    }
  }
  if (out.empty()) {
    std::vector<std::string> counts;
    for (std::int32_t k : dims) counts.push_back(std::to_string(k));
    return core::Error::unsupported("--world: " + std::to_string(options.world) +
                                    " has no factorization into " + core::join(counts, " or ") +
                                    " dims of size >= 2 (try --dims 1)");
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

bool tp_within_node(const MeshCandidate& candidate, std::int64_t gpus_per_node) {
  if (candidate.shape.size() < 2) return true;
  const std::int64_t tp = candidate.shape.back();
  return gpus_per_node >= 1 && gpus_per_node % tp == 0;
}

}  // namespace dtplan::sweep
