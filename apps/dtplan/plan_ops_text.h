#pragma once
// The op table of `dtplan plan --ops`: the ops outside the layers, then each layer's ops with
// their strategies. Consecutive layers whose tables are alike print once ("layers 0-31 (x32)"):
// alike means the same ops in the same order with the same strategies, comparing op names with
// every layer index replaced by "*" (plan/parameter_family.h), so that layer 5's residual input
// "layers.4.add_1" matches layer 6's "layers.5.add_1". LayerTables::kEach prints every layer.

#include <cstdint>
#include <string>

#include "plan/plan.h"

namespace dtplan::cli {

enum class LayerTables : std::uint8_t { kCollapseAlike, kEach };

std::string ops_text(const plan::Plan& plan, LayerTables layers);

}  // namespace dtplan::cli
