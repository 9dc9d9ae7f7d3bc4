#pragma once
// Node: one op of the joint forward+backward graph, as AutoParallel sees an FX node
// (docs/reference/strategy_selection.md §1.2, §5.7): op kind,
// ordered tensor inputs (duplicates kept: `mul(x, x)` has two slots naming the same producer),
// output metadata (several for tuple-producing ops, read through getitem), attributes, phase, layer
// id and role (parameter / gradient / input / tangent / output) with the forward-backward pair
// AutoParallel ties (param <-> grad, output <-> tangent, input <-> grad).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "graph/attributes.h"
#include "graph/op_kind.h"
#include "graph/tensor_meta.h"

namespace dtplan::graph {

// Index of a node in its graph (position in topological order).
enum class NodeId : std::int32_t {};
inline constexpr NodeId kNoNode{-1};
constexpr std::int32_t index_of(NodeId id) { return static_cast<std::int32_t>(id); }
constexpr NodeId node_id(std::size_t index) { return NodeId{static_cast<std::int32_t>(index)}; }

enum class Phase : std::uint8_t { kForward, kBackward };

// What a node is to the training step. Placeholders are kParam, kBuffer, kInput or kTangent; the
// node whose value is returned as a gradient is kGrad (pair: its param or input); the node whose
// value is the model output is kOutput (pair: its tangent).
enum class Role : std::uint8_t { kNone, kParam, kBuffer, kInput, kTangent, kGrad, kOutput };

// Activation-checkpoint metadata (AutoParallel's `recompute` tag): it never changes the joint
// graph (docs/reference/strategy_selection.md §5.6), only which forward values the partitioned
// backward recomputes.
enum class Checkpoint : std::uint8_t { kNone, kSave, kRecompute };

struct Node {
  std::string name;  // unique in its graph
  OpKind op = OpKind::kOther;
  std::string target;  // aten target of kOther ("aten.index_put.default"); empty otherwise
  std::vector<NodeId> inputs;
  std::vector<TensorMeta> outputs;
  Attributes attrs;
  Phase phase = Phase::kForward;
  std::int32_t layer = -1;  // -1: prologue / epilogue / global
  Role role = Role::kNone;
  NodeId pair = kNoNode;
  Checkpoint checkpoint = Checkpoint::kNone;

  bool operator==(const Node&) const = default;
};

// "forward" / "backward".
std::string_view phase_name(Phase phase);
core::Result<Phase> parse_phase(std::string_view text, std::string_view what);

// "none", "param", "buffer", "input", "tangent", "grad", "output".
std::string_view role_name(Role role);
core::Result<Role> parse_role(std::string_view text, std::string_view what);

// "none", "save", "recompute".
std::string_view checkpoint_name(Checkpoint checkpoint);
core::Result<Checkpoint> parse_checkpoint(std::string_view text, std::string_view what);

// True for the placeholder roles.
constexpr bool is_placeholder_role(Role role) {
  return role == Role::kParam || role == Role::kBuffer || role == Role::kInput ||
         role == Role::kTangent;
}

// "node 'NAME'", the prefix of every node-level error.
std::string node_label(std::string_view name);

}  // namespace dtplan::graph
