#include "plan_ops_text.h"

#include <vector>

#include "core/text_table.h"
#include "core/units.h"
#include "plan/parameter_family.h"

namespace dtplan::cli {

namespace {

// An op's name without its "layers.N." prefix (what the layer tables print).
std::string local_name(const plan::PlanOp& op) {
  const std::string prefix = "layers." + std::to_string(op.layer) + ".";
  if (op.layer >= 0 && op.name.starts_with(prefix)) return op.name.substr(prefix.size());
  return op.name;
}

// Whether two layers' tables are alike (the rule in plan_ops_text.h).
bool alike(const plan::Plan& plan, const std::vector<std::size_t>& a,
           const std::vector<std::size_t>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const plan::PlanOp& x = plan.ops[a[k]];
    const plan::PlanOp& y = plan.ops[b[k]];
    if (x.strategy != y.strategy || x.op != y.op || x.phase != y.phase ||
        plan::parameter_family(x.name) != plan::parameter_family(y.name)) {
      return false;
    }
  }
  return true;
}

std::string table(const plan::Plan& plan, const std::string& title,
                  const std::vector<std::size_t>& ops) {
  core::TextTable t({{"op", "", core::Align::kLeft},
                     {"kind", "", core::Align::kLeft},
                     {"phase", "", core::Align::kLeft},
                     {"options", ""},
                     {"strategy", "", core::Align::kLeft},
                     {"compute", "us"}},
                    title);
  for (std::size_t i : ops) {
    const plan::PlanOp& op = plan.ops[i];
    t.add_row({local_name(op), op.op, std::string(plan::phase_name(op.phase)),
               std::to_string(op.options), op.strategy, core::format_fixed(op.compute_us, 2)});
  }
  return t.render();
}

}  // namespace

std::string ops_text(const plan::Plan& plan, LayerTables layers) {
  std::vector<std::size_t> outside;
  std::vector<std::vector<std::size_t>> by_layer;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const std::int32_t layer = plan.ops[i].layer;
    if (layer < 0) {
      outside.push_back(i);
      continue;
    }
    if (static_cast<std::size_t>(layer) >= by_layer.size()) by_layer.resize(layer + 1);
    by_layer[static_cast<std::size_t>(layer)].push_back(i);
  }
  std::string text = table(plan, "strategies outside the layers", outside);
  for (std::size_t l = 0; l < by_layer.size();) {
    std::size_t end = l + 1;
    while (layers == LayerTables::kCollapseAlike && end < by_layer.size() &&
           alike(plan, by_layer[l], by_layer[end])) {
      ++end;
    }
    const std::string title = end - l == 1 ? "strategies of layer " + std::to_string(l)
                                           : "strategies of layers " + std::to_string(l) + "-" +
                                                 std::to_string(end - 1) + " alike (x" +
                                                 std::to_string(end - l) + ")";
    text += table(plan, title, by_layer[l]);
    l = end;
  }
  return text;
}

}  // namespace dtplan::cli
