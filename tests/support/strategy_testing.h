#pragma once
// Helpers shared by the strategy tests: placement-list literals, one-op graphs on small shapes,
// the enumerated LLaMA3-8B graph on 8x8, and lookups by placement text.

#include <cstdint>
#include <string>
#include <vector>

#include "cost/hardware.h"
#include "graph/graph.h"
#include "graph/graph_builder.h"
#include "strategy/enumerate.h"
#include "strategy/graph_strategies.h"

namespace dtplan::strategy::testing {

// Names the strategy tests use unqualified (the tests live in this namespace).
using core::DType;
using graph::OpKind;
using graph::TensorMeta;
using Ints = std::vector<std::int64_t>;
using Texts = std::vector<std::string>;

inline TensorMeta f32(graph::Shape s) { return {std::move(s), DType::kF32}; }
inline TensorMeta bf16(graph::Shape s) { return {std::move(s), DType::kBF16}; }

// "S(0),R" -> {Shard(0), Replicate}; REQUIREs that it parses.
Placements pl(const std::string& text);

// The h100-dgx profile of the source tree.
const cost::HardwareProfile& h100();

// A graph enumerated on `mesh`, kept together for lookups by node name.
struct Enumerated {
  graph::Graph graph;
  GraphStrategies strategies;

  const OpStrategy& of(const std::string& name) const;
};

// Enumerates `graph` (REQUIREs success).
Enumerated enumerate(graph::Graph graph, std::vector<std::int64_t> mesh,
                     const EnumerateOptions& options = {});

// The finished graph of a builder (REQUIREs success).
graph::Graph finish(graph::GraphBuilder&& b);

// LLaMA3-8B (B=16, S=8192) with `layers` layers, enumerated on 8x8 (built once per layer count).
const Enumerated& llama3_8b_8x8(std::int64_t layers = 2);

// enumerate_op on a node of `kind` whose outputs are inferred (or `outputs` when given), with
// these input metas and producer options (REQUIREs success).
OpStrategy run_op(graph::OpKind kind, std::vector<graph::TensorMeta> inputs,
                  graph::Attributes attrs, std::vector<std::int64_t> mesh,
                  std::vector<std::vector<Placements>> producers = {},
                  const EnumerateOptions& options = {}, std::vector<graph::TensorMeta> outputs = {},
                  std::string target = "");

// The same, returning the error instead.
core::Result<OpStrategy> try_op(graph::OpKind kind, std::vector<graph::TensorMeta> inputs,
                                graph::Attributes attrs, std::vector<std::int64_t> mesh,
                                std::vector<std::vector<Placements>> producers = {},
                                const EnumerateOptions& options = {},
                                std::vector<graph::TensorMeta> outputs = {},
                                std::string target = "");

// ops::leaf_options: every R/S option of a shape on a mesh.
std::vector<Placements> leaf_options_of(const graph::Shape& shape,
                                        const std::vector<std::int64_t>& mesh);

// Placement lists from text: {"R", "S(0)", "P(sum)"}.
std::vector<Placements> pls(const std::vector<std::string>& texts);

// Every strategy formatted (format_strategy), in order.
std::vector<std::string> formatted(const OpStrategy& op);

// The index of the strategy with exactly these outputs and inputs ("S(0),R" each), or -1.
int find_strategy(const OpStrategy& op, const std::vector<std::string>& outputs,
                  const std::vector<std::string>& inputs);

// Whether some strategy has these outputs and inputs.
inline bool has_strategy(const OpStrategy& op, const std::vector<std::string>& outputs,
                         const std::vector<std::string>& inputs) {
  return find_strategy(op, outputs, inputs) >= 0;
}

}  // namespace dtplan::strategy::testing
