#pragma once
// dtplan's explicit limits on what input may ask for, in one place. Each limit is checked where
// input reaches the library, and the error names the input, the limit and this header:
//   "--shape: mesh_shape (4096, 4096) has more than the supported maximum of 4194304 ranks
//    (kMaxRanks in core/limits.h)"
// A request beyond a limit is well-formed but unsupported (kUnsupported, exit 3) unless a comment
// says otherwise. Below the limits, arithmetic on sizes, bytes and rank counts from input uses
// core/checked.h, so an overflow is a kBadInput error (exit 2) naming what was being computed,
// never a silent wrap: a 1e12-element tensor works, a 2^63-element one is refused.
//
// The limits are generous for real models and machines and small enough that the work they bound
// (rank maps, process groups, graph nodes) fits in memory and finishes in seconds.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dtplan::core {

// Bytes of one input file (model, mesh, hardware profile, plan, replay results, nccl-tests log):
// 160 MiB, nine times the largest plan file dtplan writes for its shipped configs (README,
// Limits), while a file that would take gigabytes to parse is refused before it is read. The
// environment variable DTPLAN_MAX_INPUT_BYTES replaces it (core/text_file.h). kBadInput.
inline constexpr std::int64_t kMaxInputBytes = std::int64_t{160} << 20;

// Dims of a DeviceMesh (lib/mesh): `mesh --shape`, mesh files.
inline constexpr int kMaxMeshDims = 64;

// Ranks of a mesh's rank map and of a process group anywhere (lib/mesh, `cost --ranks`,
// `cost --group`): 2^22 = 4,194,304.
inline constexpr std::int64_t kMaxRanks = std::int64_t{1} << 22;

// Ranks of the fake process group (lib/sim), which holds a tensor per rank in one process:
// `simulate --ranks`, the mesh of a plan simulated or replayed on it. 2^20 = 1,048,576.
inline constexpr std::int64_t kMaxFakeWorldSize = std::int64_t{1} << 20;

// Mesh dims a tensor's placements may span (placement::TensorSpec, `redistribute --mesh`): the
// planners keep a bit per mesh dim in 32-bit masks and search over them.
inline constexpr std::size_t kMaxPlacementMeshDims = 16;

// Dims of a tensor shape (placement::TensorSpec, graph tensors).
inline constexpr std::size_t kMaxTensorRank = 64;

// Nodes of a model graph, read from a graph document or expanded by a builder (lib/graph).
inline constexpr std::int64_t kMaxGraphNodes = std::int64_t{1} << 20;

// Transformer layers of a builder model (lib/graph, `--layers`).
inline constexpr std::int64_t kMaxLayers = 1024;

// One size of a builder model (dim, ffn_dim, vocab_size, batch, seq_len, max_seq_len): 2^40.
// kBadInput: no real model comes near it.
inline constexpr std::int64_t kMaxModelSize = std::int64_t{1} << 40;

// Points of a size sweep (`cost --sizes MIN:MAX:+STEP`). kBadInput.
inline constexpr std::size_t kMaxSweepPoints = std::size_t{1} << 16;

// Worker threads a command may be asked for (`plan --threads`, `sweep --threads`). kBadInput.
inline constexpr std::int64_t kMaxThreads = 1024;

// Nesting depth of a layout's text (`(((4)))`), so that no input can exhaust the stack. kBadInput.
inline constexpr int kMaxLayoutDepth = 32;

// " (NAME in core/limits.h)": the suffix of every limit error, naming the limit.
inline std::string limit_note(std::string_view name) {
  return " (" + std::string(name) + " in core/limits.h)";
}

}  // namespace dtplan::core
