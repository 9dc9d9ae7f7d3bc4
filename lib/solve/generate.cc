#include "solve/generate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

namespace dtplan::solve {

namespace {

// Draws from std::mt19937_64 with plain arithmetic (the standard distributions are not
// reproducible across library implementations).
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p; }
  std::uint64_t raw() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

// prefix + decimal index (built by appending: GCC 12 warns falsely on "literal" + std::string).
std::string numbered(const std::string& prefix, std::int64_t index) {
  std::string out = prefix;
  out += std::to_string(index);
  return out;
}

class Builder {
 public:
  Problem p;

  NodeIndex node(std::string name, std::vector<double> cost) {
    p.nodes.push_back({std::move(name), std::move(cost)});
    return static_cast<NodeIndex>(p.nodes.size() - 1);
  }
  void edge(NodeIndex from, NodeIndex to, std::vector<double> cost) {
    p.edges.push_back({from, to, slots_[to]++, std::move(cost)});
  }

 private:
  std::map<NodeIndex, std::int32_t> slots_;
};

void add_memory_rows(Problem& p, Draw& d, std::int32_t rows) {
  for (std::int32_t r = 0; r < rows; ++r) {
    MemoryRow row{numbered("row", r), {}, 0, 0};
    std::int64_t lo = 0, hi = 0;
    for (std::size_t v = 0; v < p.nodes.size(); ++v) {
      if (!d.chance(0.5) && !(row.terms.empty() && v + 1 == p.nodes.size())) continue;
      MemoryTerm t{static_cast<NodeIndex>(v), {}};
      for (std::size_t l = 0; l < p.nodes[v].cost_us.size(); ++l)
        t.bytes.push_back(d.integer(0, 9));
      lo += *std::min_element(t.bytes.begin(), t.bytes.end());
      hi += *std::max_element(t.bytes.begin(), t.bytes.end());
      row.terms.push_back(std::move(t));
    }
    row.high_bytes = d.integer(lo, hi);
    row.low_bytes = d.chance(0.3) ? d.integer(lo, row.high_bytes) : 0;
    p.memory.push_back(std::move(row));
  }
}

}  // namespace

Problem random_problem(const RandomProblemSpec& s) {
  Draw d(s.seed);
  Builder b;
  const std::int32_t n = std::max(1, s.nodes);
  for (std::int32_t i = 0; i < n; ++i) {
    std::vector<double> cost(static_cast<std::size_t>(d.integer(s.min_labels, s.max_labels)));
    for (double& c : cost) c = static_cast<double>(d.integer(0, s.max_cost));
    b.node(numbered("n", i), std::move(cost));
  }
  auto matrix = [&](NodeIndex u, NodeIndex v) {
    std::vector<double> m(b.p.nodes[u].cost_us.size() * b.p.nodes[v].cost_us.size());
    for (double& c : m) {
      c = static_cast<double>(d.integer(0, s.max_cost));
      if (d.chance(s.forbidden_fraction)) c = kForbidden;
    }
    return m;
  };
  const auto width = static_cast<std::int32_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  for (std::int32_t i = 1; i < n; ++i) {
    switch (s.shape) {
      case Shape::kChain:
      case Shape::kSkipChain:
        b.edge(i - 1, i, matrix(i - 1, i));
        break;
      case Shape::kTree: {
        const auto parent = static_cast<NodeIndex>(d.integer(0, i - 1));
        b.edge(parent, i, matrix(parent, i));
        break;
      }
      case Shape::kGrid:
        if (i % width != 0) b.edge(i - 1, i, matrix(i - 1, i));
        if (i >= width) b.edge(i - width, i, matrix(i - width, i));
        break;
    }
    if (s.shape == Shape::kSkipChain && i >= 2 && d.chance(0.35)) {
      const NodeIndex from = i >= 3 && d.chance(0.5) ? i - 3 : i - 2;
      b.edge(from, i, matrix(from, i));
    }
  }
  Problem p = std::move(b.p);
  std::vector<char> follows(static_cast<std::size_t>(n), 0);
  for (std::int32_t k = 0; k < s.followers && n > 1; ++k) {
    const auto f = static_cast<NodeIndex>(d.integer(1, n - 1));
    if (follows[f]) continue;
    follows[f] = 1;
    Follower fol{f, static_cast<NodeIndex>(d.integer(0, f - 1)), {}};
    for (std::int32_t l = 0; l < p.labels(fol.leader); ++l) {
      fol.label_map.push_back(
          d.chance(0.15) ? -1 : static_cast<LabelIndex>(d.integer(0, p.labels(f) - 1)));
    }
    p.followers.push_back(std::move(fol));
  }
  for (std::int32_t k = 0; k < s.pins; ++k) {
    Pin pin{static_cast<NodeIndex>(d.integer(0, n - 1)), {}};
    for (LabelIndex l = 0; l < p.labels(pin.node); ++l) {
      if (d.chance(0.5)) pin.labels.push_back(l);
    }
    if (pin.labels.empty())
      pin.labels.push_back(static_cast<LabelIndex>(d.integer(0, p.labels(pin.node) - 1)));
    p.pins.push_back(std::move(pin));
  }
  add_memory_rows(p, d, s.memory_rows);
  return p;
}

namespace {

struct TemplateOp {
  std::int32_t labels = 1;
  std::vector<double> cost;
  bool param = false;
  std::vector<std::int64_t> bytes;  // params only
};

struct TemplateEdge {
  std::int32_t from = 0;  // template index, or -1 for the previous layer's output
  std::int32_t to = 0;
  std::vector<double> cost;
};

struct LayerTemplate {
  std::vector<TemplateOp> ops;
  std::vector<TemplateEdge> edges;
  std::int32_t last = 0;  // the layer's output (residual stream)
};

std::int32_t scaled(std::int32_t labels, double scale) {
  return std::max(1, static_cast<std::int32_t>(std::lround(labels * scale)));
}

std::int32_t activation_labels(Draw& d, double scale) {
  const std::int64_t r = d.integer(0, 99);
  const std::int32_t base = r < 55   ? 15
                            : r < 75 ? 24
                            : r < 85 ? 23
                            : r < 93 ? 7
                            : r < 98 ? 14
                                     : static_cast<std::int32_t>(d.integer(100, 200));
  return scaled(base, scale);
}

double round_if(double v, bool integer) { return integer ? std::round(v) : v; }

// Redistribution-like matrix: free on matching placements, priced elsewhere, a few forbidden.
std::vector<double> redistribution(Draw& d, std::int32_t lu, std::int32_t lv, bool integer) {
  const std::uint64_t salt = d.raw() % 1000;
  const double scale = static_cast<double>(d.integer(5, 400)) / 4.0;
  const std::int32_t m = std::min(lu, lv);
  std::vector<double> out(static_cast<std::size_t>(lu) * lv);
  for (std::int32_t j = 0; j < lu; ++j) {
    for (std::int32_t o = 0; o < lv; ++o) {
      double c = 0;
      if (j % m != o % m) {
        c = round_if(scale * (1 + static_cast<double>((j * 7 + o * 13 + salt) % 9) * 0.37),
                     integer);
        if ((j * 31 + o * 17 + salt) % 23 == 0) c = kForbidden;
      }
      out[static_cast<std::size_t>(j) * lv + o] = c;
    }
  }
  return out;
}

std::vector<double> compute(Draw& d, std::int32_t labels, bool integer) {
  const double base = static_cast<double>(d.integer(20, 4000)) / 8.0;
  std::vector<double> out;
  for (std::int32_t l = 0; l < labels; ++l) {
    out.push_back(
        round_if(base / (1 + l % 8) + static_cast<double>(d.integer(0, 40)) / 8.0, integer));
  }
  return out;
}

LayerTemplate make_template(Draw& d, const LayeredProblemSpec& s) {
  LayerTemplate t;
  std::vector<std::int32_t> chain;
  const std::int32_t n = std::max(4, s.nodes_per_layer);
  for (std::int32_t i = 0; static_cast<std::int32_t>(t.ops.size()) < n; ++i) {
    if (i % 15 == 7 && static_cast<std::int32_t>(t.ops.size()) + 2 <= n) {  // a parameter leaf
      TemplateOp w;
      w.param = true;
      w.labels = scaled(9, s.label_scale);
      w.cost.assign(static_cast<std::size_t>(w.labels), 0);
      const std::int64_t full = d.integer(1, 64) << 20;
      for (std::int32_t l = 0; l < w.labels; ++l)
        w.bytes.push_back(l == 0 ? full : l < 5 ? full / 8 : full / 64);
      t.ops.push_back(std::move(w));
    }
    TemplateOp op;
    op.labels = activation_labels(d, s.label_scale);
    op.cost = compute(d, op.labels, s.integer_costs);
    const auto index = static_cast<std::int32_t>(t.ops.size());
    if (index > 0 && t.ops.back().param) {
      // A replicated parameter (label 0) is free to use; sharded ones need an all-gather.
      std::vector<double> m = redistribution(d, t.ops.back().labels, op.labels, s.integer_costs);
      const double gather = round_if(static_cast<double>(d.integer(8, 160)) / 4.0, s.integer_costs);
      for (std::size_t k = 0; k < m.size(); ++k)
        m[k] = k < static_cast<std::size_t>(op.labels) ? 0.0 : m[k] + gather;
      t.edges.push_back({index - 1, index, std::move(m)});
    }
    t.ops.push_back(std::move(op));
    chain.push_back(index);
  }
  t.last = chain.back();
  const std::int32_t mid = chain[chain.size() / 2];
  auto link = [&](std::int32_t from, std::int32_t to) {
    const std::int32_t lu = from < 0 ? t.ops[t.last].labels : t.ops[from].labels;
    t.edges.push_back({from, to, redistribution(d, lu, t.ops[to].labels, s.integer_costs)});
  };
  link(-1, chain[0]);
  link(-1, mid);  // residual: layer input -> attention add
  for (std::size_t k = 1; k < chain.size(); ++k) link(chain[k - 1], chain[k]);
  link(mid, t.last);  // residual: attention add -> layer output
  for (std::size_t k = 0; k + 2 < chain.size(); ++k) {
    if (d.chance(0.25) && chain[k + 2] != t.last) link(chain[k], chain[k + 2]);
  }
  return t;
}

}  // namespace

Problem layered_problem(const LayeredProblemSpec& s) {
  Draw d(s.seed);
  const LayerTemplate t = make_template(d, s);
  Builder b;
  NodeIndex prev = -1;
  for (std::int32_t i = 0; i < s.prologue_nodes; ++i) {
    const std::int32_t labels =
        i + 1 == s.prologue_nodes ? t.ops[t.last].labels : scaled(15, s.label_scale);
    const NodeIndex v = b.node(numbered("prologue", i), compute(d, labels, s.integer_costs));
    if (prev >= 0) b.edge(prev, v, redistribution(d, b.p.labels(prev), labels, s.integer_costs));
    prev = v;
  }
  MemoryRow row{"params", {}, 0, 0};
  RepeatGroup group;
  for (std::int32_t k = 0; k < s.layers; ++k) {
    const auto base = static_cast<NodeIndex>(b.p.nodes.size());
    group.blocks.emplace_back();
    for (std::size_t i = 0; i < t.ops.size(); ++i) {
      const std::string name = numbered(numbered("L", k) + (t.ops[i].param ? ".w" : ".op"),
                                        static_cast<std::int64_t>(i));
      const NodeIndex v = b.node(name, t.ops[i].cost);
      group.blocks.back().push_back(v);
      if (t.ops[i].param && s.memory_row) row.terms.push_back({v, t.ops[i].bytes});
    }
    for (const TemplateEdge& e : t.edges) {
      const NodeIndex from = e.from < 0 ? prev : base + e.from;
      if (from >= 0) b.edge(from, base + e.to, e.cost);
    }
    prev = base + t.last;
  }
  for (std::int32_t i = 0; i < s.epilogue_nodes; ++i) {
    const std::int32_t labels = scaled(15, s.label_scale);
    const NodeIndex v = b.node(numbered("epilogue", i), compute(d, labels, s.integer_costs));
    if (prev >= 0) b.edge(prev, v, redistribution(d, b.p.labels(prev), labels, s.integer_costs));
    prev = v;
  }
  Problem p = std::move(b.p);
  if (s.memory_row && !row.terms.empty()) {
    std::int64_t lo = 0, hi = 0;
    for (const MemoryTerm& term : row.terms) {
      lo += *std::min_element(term.bytes.begin(), term.bytes.end());
      hi += *std::max_element(term.bytes.begin(), term.bytes.end());
    }
    row.high_bytes =
        lo + static_cast<std::int64_t>(std::floor(s.memory_budget * static_cast<double>(hi - lo)));
    p.memory.push_back(std::move(row));
  }
  if (s.annotate_repeats && s.layers >= 2) p.repeats.push_back(std::move(group));
  return p;
}

}  // namespace dtplan::solve
