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

#include "core/op_role.h"
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
  // pair: kGrad <-> its kParam or kInput, kOutput <-> its kTangent.
  core::OpRole role = core::OpRole::kNone;
  NodeId pair = kNoNode;
  Checkpoint checkpoint = Checkpoint::kNone;

  bool operator==(const Node&) const = default;
};

// "forward" / "backward".
std::string_view phase_name(Phase phase);
core::Result<Phase> parse_phase(std::string_view text, std::string_view what);

// "none", "save", "recompute".
std::string_view checkpoint_name(Checkpoint checkpoint);
core::Result<Checkpoint> parse_checkpoint(std::string_view text, std::string_view what);

// "node 'NAME'", the prefix of every node-level error.
std::string node_label(std::string_view name);

}  // namespace dtplan::graph
