#pragma once
// The mesh shapes `dtplan sweep` tries: every ordered factorization of the world size into k dims
// (k in the dims asked for, 1 to 3), each dim of size >= 2, named by role with tensor parallelism
// innermost (fastest-varying ranks, so a tp group is consecutive ranks, as init_device_mesh lays
// it out), together with the flattened meshes a user creates for such a mesh.
//
// Roles (AutoParallel's example harness uses ("dp","tp") on 8x8 and a 1-D (64,) variant; the
// third role is context parallelism, as in DeviceMesh's ("dp","cp","tp") examples):
//   1-D  (dp)         data parallel / FSDP over every rank
//   2-D  (dp, tp)     FSDP across, tensor parallel within
//   3-D  (dp, cp, tp) FSDP, context (sequence) parallel, tensor parallel
// Names are labels: the solver may place any sharding on any dim, so a role says what the dim is
// meant for and which dims count as data parallel (every dim but tp).
//
// Flattened meshes (FlattenPolicy::kUser, the default): the data-parallel dims flattened into one
// ("dp_cp", what FSDP over dp x cp shards on) when there are two, and the whole mesh flattened
// ("dp_tp", "dp_cp_tp"), which AutoParallel's lowering creates to run S(0)S(0) -> RR as one
// collective. kNone creates none (to see what they are worth).
//
//   enumerate_candidates({.world = 8, .dims = {2}}) ->
//     (2,4) dp,tp flatten [dp,tp];  (4,2) dp,tp flatten [dp,tp]
//   enumerate_candidates({.world = 8, .dims = {1, 3}}) -> (8) dp;  (2,2,2) dp,cp,tp
//     flatten [dp,cp] [dp,cp,tp]

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "mesh/mesh_io.h"

namespace dtplan::sweep {

enum class FlattenPolicy : std::uint8_t { kUser, kNone };

struct CandidateOptions {
  std::int64_t world = 1;
  std::vector<std::int32_t> dims = {1, 2, 3};  // mesh ranks to try, each in [1, 3]
  FlattenPolicy flatten = FlattenPolicy::kUser;
  bool operator==(const CandidateOptions&) const = default;
};

struct MeshCandidate {
  std::vector<std::int64_t> shape;
  std::vector<std::string> names;
  std::vector<mesh::FlattenSpec> flatten;  // root dim names; default names (joined by "_")
  bool operator==(const MeshCandidate&) const = default;
};

// The role names of a k-dim mesh: {"dp"}, {"dp","tp"}, {"dp","cp","tp"}.
// @pre 1 <= k <= 3.
std::vector<std::string> role_names(std::int32_t k);

// Every candidate, ordered by dim count, then shape (lexicographic on sizes). A 1-D mesh is
// (world) even when world is 1; other dims have size >= 2.
// @post every candidate's shape multiplies to world; no two are equal.
// Errors: kBadInput for world < 1 or a dim count outside [1, 3] (naming "--world" / "--dims");
// kUnsupported when no candidate exists ("world 7 has no factorization into 2 or 3 dims of size
// >= 2").
core::Result<std::vector<MeshCandidate>> enumerate_candidates(const CandidateOptions& options);

// "8x8", "2x4x8", "64".
std::string shape_label(const std::vector<std::int64_t>& shape);

// The mesh config a user would write for the candidate (mesh_io.h), with `hardware`.
mesh::MeshConfig mesh_config(const MeshCandidate& candidate, const std::string& hardware);

// Ranks of one tp group that share a node when tp is innermost and rank r is on node
// r / gpus_per_node: true when the tp size divides gpus_per_node (1-D meshes have no tp: true).
bool tp_within_node(const MeshCandidate& candidate, std::int64_t gpus_per_node);

}  // namespace dtplan::sweep
