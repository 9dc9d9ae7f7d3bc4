#pragma once
// Kernel fusion of a compiled transformer block (docs/model.md, "torch.compile"): torchtitan
// compiles each block with inductor, which keeps matmuls and attention as library kernels and
// fuses the memory-bound work between them (norms, RoPE, SiLU and mul, residual adds, casts,
// reductions) into generated kernels. dtplan models a fused region as a connected set of
// fusible ops of one layer and one phase, connected through view-like ops (views, getitem and
// split move no data), with no library kernel between any two of them: an op joins its
// producer's region only when as many library kernels lie on its longest input path as on the
// producer's (so the residual add after w2 does not join the norm region before w1, whose
// output it also reads). Inside a region, a value produced and consumed in the region never
// touches HBM, and the region launches one kernel:
//
//   - an input slot is internal when its value (looked up through views) is produced in the
//     same region; its bytes are not read;
//   - an output is internal when every op that reads it (through views) is in the region, so
//     nothing outside needs it (a value saved for the backward is read by a backward op: not
//     internal); its bytes are not written;
//   - the region's first op in graph order pays the launch floor, the others do not.
//
// Ops outside layers (embedding, the final norm, the output and the loss) stay eager, as
// torchtitan compiles the blocks only. A region is an upper bound on what inductor fuses: it may
// split a region into several kernels (a reduction followed by a broadcast), which this model
// does not price.
//
//   x -> cast(f32) -> pow -> mean -> add -> rsqrt -> mul(x32, rs) -> cast(bf16) -> mul(w)
//   one region: reads x and w, writes the output (and rsqrt if the backward saves it).

#include <cstdint>
#include <vector>

#include "core/training.h"
#include "graph/graph.h"

namespace dtplan::graph {

// What fusion does to one op's kernel. The default is an eager op: its own kernel, every input
// read and every output written.
struct FusedOp {
  std::int32_t region = -1;  // -1: not in a fused region
  bool launches = true;      // pays a kernel launch (an eager op, or its region's first op)
  std::uint64_t internal_inputs = 0;   // bit i: slot i reads a value of the region (slots < 64)
  std::uint64_t internal_outputs = 0;  // bit o: output o is read only in the region (o < 64)

  [[nodiscard]] bool input_internal(std::size_t slot) const {
    return slot < 64 && ((internal_inputs >> slot) & 1U) != 0;
  }
  [[nodiscard]] bool output_internal(std::size_t output) const {
    return output < 64 && ((internal_outputs >> output) & 1U) != 0;
  }
  bool operator==(const FusedOp&) const = default;
};

// One entry per node of `graph` (in node order). kEager: every entry the default. Regions are
// numbered in order of their first op.
std::vector<FusedOp> fuse_regions(const Graph& graph, core::Execution execution);

}  // namespace dtplan::graph
