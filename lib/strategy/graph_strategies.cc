#include "strategy/graph_strategies.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "graph/attributes.h"

namespace dtplan::strategy {
namespace {

template <class T>
void put(std::string& key, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key.append(bytes, sizeof(T));
}

void put_meta(std::string& key, const graph::TensorMeta& meta) {
  put(key, static_cast<std::uint8_t>(meta.dtype));
  put(key, static_cast<std::uint32_t>(meta.shape.size()));
  for (std::int64_t s : meta.shape) put(key, s);
}

void put_text(std::string& key, std::string_view text) {
  put(key, static_cast<std::uint32_t>(text.size()));
  key.append(text);
}

}  // namespace

std::int64_t GraphStrategies::total_strategies() const {
  std::int64_t total = 0;
  for (std::int32_t i : index_) {
    total += static_cast<std::int64_t>(distinct_[static_cast<std::size_t>(i)].size());
  }
  return total;
}

std::size_t producer_output_index(const graph::Node& consumer) {
  if (consumer.op != graph::OpKind::kGetitem) return 0;
  const auto index = consumer.attrs.get_int("index");
  return index.ok() && *index >= 0 ? static_cast<std::size_t>(*index) : 0;
}

core::Result<GraphStrategies> enumerate_graph(const graph::Graph& graph,
                                              std::span<const std::int64_t> mesh_sizes,
                                              const cost::HardwareProfile& profile,
                                              const EnumerateOptions& options) {
  GraphStrategies out;
  out.index_.reserve(graph.size());
  const std::vector<graph::FusedOp> fusion = graph::fuse_regions(graph, options.execution);
  std::unordered_map<std::string, std::int32_t> cache;
  std::string key;
  std::vector<graph::TensorMeta> inputs;
  for (const graph::Node& node : graph.nodes()) {
    const std::size_t out_index = producer_output_index(node);
    inputs.clear();
    for (graph::NodeId p : node.inputs) {
      const graph::Node& producer = graph.node(p);
      if (out_index >= producer.outputs.size()) {
        return core::Error::bad_input(graph::node_label(node.name) + ": reads output " +
                                      std::to_string(out_index) + " of '" + producer.name +
                                      "', which has " + std::to_string(producer.outputs.size()));
      }
      inputs.push_back(producer.outputs[out_index]);
    }
    const bool reads = reads_producers(node, options);
    if (options.cache) {
      key.clear();
      put(key, static_cast<std::uint8_t>(node.op));
      put_text(key, node.target);
      for (const auto& [name, value] : node.attrs.entries()) {
        put_text(key, name);
        put_text(key, graph::format_attr_value(value));
      }
      for (const graph::TensorMeta& m : inputs) put_meta(key, m);
      put(key, static_cast<std::uint32_t>(node.outputs.size()));
      for (const graph::TensorMeta& m : node.outputs) put_meta(key, m);
      // Strided leaf options depend on the role (parameters and gradients only).
      if (options.strided_params) put(key, static_cast<std::uint8_t>(node.role));
      // A fused op is priced on its region's boundary (compute_cost.h).
      const graph::FusedOp& f = fusion[out.index_.size()];
      put(key, f.launches);
      put(key, f.internal_inputs);
      put(key, f.internal_outputs);
      if (reads) {
        for (graph::NodeId p : node.inputs) {
          put(key, out.index_[static_cast<std::size_t>(graph::index_of(p))]);
        }
      }
      if (auto it = cache.find(key); it != cache.end()) {
        out.index_.push_back(it->second);
        continue;
      }
    }
    OpRequest request{node, inputs, {}, fusion[out.index_.size()]};
    if (reads) {
      for (graph::NodeId p : node.inputs) {
        const OpStrategy& producer = out.of(p);
        if (producer.strategies.empty()) {
          return core::Error::internal(graph::node_label(node.name) + ": producer '" +
                                       graph.node(p).name + "' has no strategies");
        }
        request.producer_options.push_back(output_options(producer, out_index));
      }
    }
    DTPLAN_TRY(OpStrategy op, enumerate_op(request, mesh_sizes, profile, options));
    const auto index = static_cast<std::int32_t>(out.distinct_.size());
    out.distinct_.push_back(std::move(op));
    out.index_.push_back(index);
    if (options.cache) cache.emplace(key, index);
  }
  return out;
}

}  // namespace dtplan::strategy
