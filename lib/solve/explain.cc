#include "solve/explain.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/units.h"

namespace dtplan::solve {

namespace {

// Sort key of a difference: forbidden (infinite or undefined) first, then by magnitude.
double magnitude(double delta) { return std::isnan(delta) ? kForbidden : std::fabs(delta); }

std::string us(double value) {
  if (std::isinf(value)) return value > 0 ? "inf us" : "-inf us";
  if (std::isnan(value)) return "undefined";
  return core::format_fixed(value, 3) + " us";
}

std::string signed_us(double value) {
  std::string out = value > 0 ? "+" : "";
  out += us(value);
  return out;
}

}  // namespace

core::Result<Explanation> explain(const Problem& problem, std::span<const LabelIndex> a,
                                  std::span<const LabelIndex> b) {
  auto ra = evaluate(problem, a);
  if (!ra.ok()) return ra.error().with_context("solution a");
  auto rb = evaluate(problem, b);
  if (!rb.ok()) return rb.error().with_context("solution b");
  Evaluation ea = std::move(ra).value(), eb = std::move(rb).value();
  Explanation out;
  out.delta_us = eb.total_us - ea.total_us;
  auto add = [&](TermKind kind, std::size_t index, double x, double y) {
    if (x == y) return;  // equal costs (both forbidden included) contribute nothing
    out.terms.push_back({kind, static_cast<std::int32_t>(index), x, y, y - x});
  };
  for (std::size_t i = 0; i < ea.node_us.size(); ++i)
    add(TermKind::kNode, i, ea.node_us[i], eb.node_us[i]);
  for (std::size_t e = 0; e < ea.edge_us.size(); ++e)
    add(TermKind::kEdge, e, ea.edge_us[e], eb.edge_us[e]);
  std::stable_sort(out.terms.begin(), out.terms.end(),
                   [](const TermDifference& x, const TermDifference& y) {
                     const double mx = magnitude(x.delta_us), my = magnitude(y.delta_us);
                     if (mx != my) return mx > my;
                     if (x.kind != y.kind) return x.kind < y.kind;
                     return x.index < y.index;
                   });
  for (std::size_t r = 0; r < ea.memory_bytes.size(); ++r) {
    if (ea.memory_bytes[r] != eb.memory_bytes[r]) {
      out.memory.push_back({static_cast<std::int32_t>(r), ea.memory_bytes[r], eb.memory_bytes[r]});
    }
  }
  out.a = std::move(ea);
  out.b = std::move(eb);
  return out;
}

std::string format_explanation(const Problem& problem, std::span<const LabelIndex> a,
                               std::span<const LabelIndex> b, const Explanation& ex,
                               std::size_t max_terms) {
  std::string text;
  const bool a_ok = ex.a.feasible(), b_ok = ex.b.feasible();
  if (a_ok != b_ok) {
    text += std::string(a_ok ? "a" : "b") + " is feasible, " + (a_ok ? "b" : "a") + " is not";
  } else if (ex.delta_us == 0) {
    text += "a and b tie";
  } else {
    const bool a_wins = ex.delta_us > 0 || std::isnan(ex.delta_us);
    text += std::string(a_wins ? "a beats b" : "b beats a") + " by " + us(std::fabs(ex.delta_us));
  }
  text += " (a " + us(ex.a.total_us) + ", b " + us(ex.b.total_us) + ")\n";
  for (const auto* side : {&ex.a, &ex.b}) {
    for (const Violation& v : side->violations) {
      text += std::string("  ") + (side == &ex.a ? "a" : "b") + " violates " +
              std::string(violation_name(v.kind)) + ": " + v.message + "\n";
    }
  }
  for (const MemoryDifference& m : ex.memory) {
    text += "  memory row '" + problem.memory[static_cast<std::size_t>(m.row)].name +
            "': " + std::to_string(m.a_bytes) + " vs " + std::to_string(m.b_bytes) + " bytes\n";
  }
  for (std::size_t k = 0; k < ex.terms.size() && k < max_terms; ++k) {
    const TermDifference& t = ex.terms[k];
    std::string what;
    if (t.kind == TermKind::kNode) {
      what = "node '" + problem.nodes[static_cast<std::size_t>(t.index)].name + "' label " +
             std::to_string(a[t.index]) + " vs " + std::to_string(b[t.index]);
    } else {
      const Edge& e = problem.edges[static_cast<std::size_t>(t.index)];
      what = "edge " + std::to_string(t.index) + " '" + problem.nodes[e.from].name + "' -> '" +
             problem.nodes[e.to].name + "' labels " + std::to_string(a[e.from]) + "," +
             std::to_string(a[e.to]) + " vs " + std::to_string(b[e.from]) + "," +
             std::to_string(b[e.to]);
    }
    text += "  ";
    text += what;
    text += ": " + us(t.a_us) + " -> " + us(t.b_us) + " (" + signed_us(t.delta_us) + ")\n";
  }
  if (ex.terms.size() > max_terms) {
    text += "  ... " + std::to_string(ex.terms.size() - max_terms) + " more terms\n";
  }
  return text;
}

}  // namespace dtplan::solve
