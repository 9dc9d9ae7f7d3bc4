#pragma once
// The configurations `dtplan sweep` tries: every way to split the world into torchtitan's
// parallelism degrees (docs/reference/torchtitan.md §1), each as the mesh init_device_mesh builds
// for it, times the training choices (global batch, gradient accumulation, activation
// checkpointing) and the plans (the optimum, torchtitan's parallelize_llama) asked for.
//
// Roles, outermost first, as torchtitan orders its mesh dims:
//   dp_replicate  HSDP replicas (parameters replicated across them)
//   dp_shard      FSDP (parameters sharded)
//   cp            context parallel (sequence sharded)
//   tp            tensor parallel, innermost: a tp group is consecutive ranks
// A degree of 1 leaves its role out of the mesh, so a k-dim candidate has k roles of degree >= 2
// (the world of one rank is the 1-D mesh (1), named dp_shard). For the optimum the names are
// labels (the solver may put any sharding on any dim); with --parallelize torchtitan they decide
// every pinned placement.
//
// Degrees tried per role: RoleDegrees' lists (empty: every divisor of the world); dp_replicate
// is {1} unless asked for (HSDP is a choice a user makes). tp stays within a node by default: a
// tp degree must divide the GPUs per node and be at most max_tp_per_node; tp_across_nodes lifts
// both (rows whose tp spans nodes are noted).
//
// Flattened meshes (FlattenPolicy::kUser), as torchtitan creates them: "dp" = dp_replicate x
// dp_shard (data loading), "dp_shard_cp" = dp_shard x cp (FSDP's mesh under CP), "dp_cp" = every
// data-parallel dim with cp (the loss), when each has two dims or more and differs from those
// before; and the whole mesh (names joined by "_"), which AutoParallel's lowering flattens to
// run S(0)S(0) -> RR as one collective, when it differs from them. kNone creates none.
//
// Order: dim count ascending, then the degrees (dp_replicate, dp_shard, cp, tp) lexicographic,
// then batch, grad_accum, checkpoint and plan in the order their lists give.
//
//   enumerate_candidates({.world = 8, .dims = {2}, .roles = {.cp = {1}}}) ->
//     (2,4) dp_shard,tp flatten [dp_shard,tp];  (4,2) dp_shard,tp flatten [dp_shard,tp]

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/training.h"
#include "mesh/mesh_io.h"

namespace dtplan::sweep {

enum class FlattenPolicy : std::uint8_t { kUser, kNone };

// The plan a candidate is priced with: the solver's optimum, or torchtitan's parallelize_llama
// compiled to pins (strategy/torchtitan_pins.h) with the rest chosen optimally.
enum class Parallelize : std::uint8_t { kOptimal, kTorchtitan };

// "optimal", "torchtitan".
std::string_view parallelize_name(Parallelize p);
// Errors (kBadInput) name `what`: "--parallelize: 'x' is not one of optimal, torchtitan".
core::Result<Parallelize> parse_parallelize(std::string_view text, std::string_view what);

// Degrees tried per role; empty: every divisor of the world.
struct RoleDegrees {
  std::vector<std::int64_t> dp_replicate = {1};
  std::vector<std::int64_t> dp_shard{};
  std::vector<std::int64_t> cp{};
  std::vector<std::int64_t> tp{};
  bool operator==(const RoleDegrees&) const = default;
};

struct CandidateOptions {
  std::int64_t world = 1;
  std::vector<std::int32_t> dims = {1, 2, 3, 4};  // mesh dim counts to try, each in [1, 4]
  FlattenPolicy flatten = FlattenPolicy::kUser;
  RoleDegrees roles{};
  std::int64_t gpus_per_node = 0;    // 0: no node rule for tp
  std::int64_t max_tp_per_node = 0;  // 0: gpus_per_node
  bool tp_across_nodes = false;
  // The training choices (nullopt entries: the model file's value); empty lists mean {nullopt}.
  std::vector<std::int64_t> batches{};
  std::vector<std::int64_t> grad_accums{};
  std::vector<core::CheckpointPolicy> checkpoints{};
  std::vector<Parallelize> parallelize = {Parallelize::kOptimal};
  bool operator==(const CandidateOptions&) const = default;
};

struct MeshCandidate {
  std::vector<std::int64_t> shape;
  std::vector<std::string> names;
  std::vector<mesh::FlattenSpec> flatten;
  std::optional<std::int64_t> batch{};       // global batch; nullopt: the model file's
  std::optional<std::int64_t> grad_accum{};  // microbatches per step; nullopt: the file's
  std::optional<core::CheckpointPolicy> checkpoint{};
  Parallelize parallelize = Parallelize::kOptimal;
  bool operator==(const MeshCandidate&) const = default;
};

// Every candidate, in the order above.
// @post every candidate's shape multiplies to world; no two are equal.
// Errors: kBadInput for world < 1, a dim count outside [1, 4], a degree < 1 (naming "--world",
// "--dims", "--tp", ...); kUnsupported when no mesh meets the constraints (the message says
// which).
core::Result<std::vector<MeshCandidate>> enumerate_candidates(const CandidateOptions& options);

// "8x8 (dp_shard,tp)", followed by the training choices the candidate sets and a plan other than
// the optimum: "8x8 (dp_shard,tp) batch 256 grad-accum 2 checkpoint full torchtitan".
std::string candidate_text(const MeshCandidate& candidate);

// "8x8", "2x4x8", "64".
std::string shape_label(const std::vector<std::int64_t>& shape);

// The mesh config a user would write for the candidate (mesh_io.h), with `hardware`.
mesh::MeshConfig mesh_config(const MeshCandidate& candidate, const std::string& hardware);

// The degree of `role` ("tp", "dp_shard", ...) in the candidate: its dim's size, 1 when absent.
std::int64_t role_degree(const MeshCandidate& candidate, std::string_view role);

// Whether a tp group lies within one node when rank r is on node r / gpus_per_node: the tp
// degree divides gpus_per_node (no tp dim: true).
bool tp_within_node(const MeshCandidate& candidate, std::int64_t gpus_per_node);

}  // namespace dtplan::sweep
