#include "solve/ilp_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

#include "core/units.h"
#include "solve/evaluate.h"

#if DTPLAN_WITH_CBC
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#endif

namespace dtplan::solve {

#if DTPLAN_WITH_CBC
namespace {

constexpr std::int64_t kMaxVariables = std::int64_t{1} << 26;

struct Column {
  LabelIndex o = 0;  // consumer label
  LabelIndex j = 0;  // producer label (0 for a node without inputs)
  int col = 0;
};

class IlpBuilder {
 public:
  explicit IlpBuilder(const Problem& p) : p_(p) {}

  core::Status build() {
    const std::size_t n = p_.nodes.size();
    allowed_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
      allowed_[v].resize(p_.nodes[v].cost_us.size());
      for (std::size_t o = 0; o < allowed_[v].size(); ++o)
        allowed_[v][o] = static_cast<char>(p_.nodes[v].cost_us[o] != kForbidden);
    }
    for (const Pin& pin : p_.pins) {
      std::vector<char> mask(allowed_[pin.node].size(), 0);
      for (LabelIndex l : pin.labels) mask[l] = 1;
      for (std::size_t o = 0; o < mask.size(); ++o)
        allowed_[pin.node][o] = static_cast<char>(allowed_[pin.node][o] & mask[o]);
    }
    args_.resize(n);
    for (std::size_t e = 0; e < p_.edges.size(); ++e)
      args_[p_.edges[e].to].push_back(static_cast<int>(e));
    for (auto& a : args_) {
      std::sort(a.begin(), a.end(),
                [&](int x, int y) { return p_.edges[x].slot < p_.edges[y].slot; });
    }
    columns_.resize(n);
    y_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
      y_[v].resize(allowed_[v].size());
      const std::size_t arity = std::max<std::size_t>(1, args_[v].size());
      columns_[v].resize(arity);
      for (std::size_t a = 0; a < arity; ++a) {
        for (LabelIndex o = 0; o < static_cast<LabelIndex>(allowed_[v].size()); ++o) {
          if (!allowed_[v][o]) continue;
          const double share = p_.nodes[v].cost_us[o] / static_cast<double>(arity);
          if (args_[v].empty()) {
            add_column(v, a, o, 0, p_.nodes[v].cost_us[o]);
            continue;
          }
          const Edge& e = p_.edges[args_[v][a]];
          for (LabelIndex j = 0; j < p_.labels(e.from); ++j) {
            const double c = pair_cost(p_, e, j, o);
            if (allowed_[e.from][j] && c != kForbidden) add_column(v, a, o, j, c + share);
          }
        }
      }
      if (static_cast<std::int64_t>(obj.size()) > kMaxVariables) {
        return core::Error::unsupported("ilp: the formulation needs more than " +
                                        std::to_string(kMaxVariables) + " variables");
      }
    }
    add_rows();
    return {};
  }

  // The labels of a CBC solution (the label whose y sums to 1).
  std::vector<LabelIndex> labels(const double* x) const {
    std::vector<LabelIndex> out(p_.nodes.size(), 0);
    for (std::size_t v = 0; v < y_.size(); ++v) {
      for (std::size_t o = 0; o < y_[v].size(); ++o) {
        double sum = 0;
        for (int c : y_[v][o]) sum += x[c];
        if (sum > 0.5) out[v] = static_cast<LabelIndex>(o);
      }
    }
    return out;
  }

  std::vector<double> obj, row_lb, row_ub, vals;
  std::vector<int> rows, cols;

 private:
  void add_column(std::size_t v, std::size_t a, LabelIndex o, LabelIndex j, double cost) {
    const int col = static_cast<int>(obj.size());
    obj.push_back(cost);
    columns_[v][a].push_back({o, j, col});
    if (a == 0) y_[v][o].push_back(col);
  }

  int row(double lb, double ub) {
    row_lb.push_back(lb);
    row_ub.push_back(ub);
    return static_cast<int>(row_lb.size()) - 1;
  }
  void entry(int r, int c, double v) {
    rows.push_back(r);
    cols.push_back(c);
    vals.push_back(v);
  }

  void add_rows() {
    for (std::size_t v = 0; v < columns_.size(); ++v) {
      for (std::size_t a = 0; a < columns_[v].size(); ++a) {  // uniqueness
        const int r = row(1, 1);
        for (const Column& c : columns_[v][a]) entry(r, c.col, 1);
      }
      for (std::size_t a = 1; a < columns_[v].size(); ++a) {  // same output across arguments
        std::vector<int> by_label(allowed_[v].size(), -1);
        for (LabelIndex o = 0; o < static_cast<LabelIndex>(allowed_[v].size()); ++o) {
          if (allowed_[v][o]) by_label[o] = row(0, 0);
        }
        for (const Column& c : columns_[v][0]) entry(by_label[c.o], c.col, 1);
        for (const Column& c : columns_[v][a]) entry(by_label[c.o], c.col, -1);
      }
      for (std::size_t a = 0; a < args_[v].size(); ++a) {  // flow, every slot
        const NodeIndex u = p_.edges[args_[v][a]].from;
        std::vector<int> by_label(allowed_[u].size(), -1);
        for (LabelIndex j = 0; j < static_cast<LabelIndex>(allowed_[u].size()); ++j) {
          if (!allowed_[u][j]) continue;
          by_label[j] = row(0, 0);
          for (int c : y_[u][j]) entry(by_label[j], c, 1);
        }
        for (const Column& c : columns_[v][a]) entry(by_label[c.j], c.col, -1);
      }
    }
    for (const Follower& f : p_.followers) {
      for (LabelIndex o = 0; o < p_.labels(f.node); ++o) {
        const int r = row(0, 0);
        for (int c : y_[f.node][o]) entry(r, c, 1);
        for (LabelIndex j = 0; j < p_.labels(f.leader); ++j) {
          if (f.label_map[j] != o) continue;
          for (int c : y_[f.leader][j]) entry(r, c, -1);
        }
      }
    }
    for (const MemoryRow& m : p_.memory) {
      std::int64_t g = 0, total = 0;
      for (const MemoryTerm& t : m.terms) {
        for (std::int64_t b : t.bytes) g = std::gcd(g, b);
        total += *std::max_element(t.bytes.begin(), t.bytes.end());
      }
      g = std::max<std::int64_t>(g, 1);
      const std::int64_t low_units = (m.low_bytes + g - 1) / g;  // sums are multiples of g
      const std::int64_t high_units = m.high_bytes / g;
      const double lb = static_cast<double>(low_units);
      const double ub = m.high_bytes >= total ? COIN_DBL_MAX
                        : m.high_bytes < 0    ? -1.0
                                              : static_cast<double>(high_units);
      const int r = row(m.low_bytes <= 0 ? -COIN_DBL_MAX : lb, ub);
      for (const MemoryTerm& t : m.terms) {
        for (std::size_t o = 0; o < t.bytes.size(); ++o) {
          const std::int64_t units = t.bytes[o] / g;  // exact: g divides every byte count
          for (int c : y_[t.node][o]) entry(r, c, static_cast<double>(units));
        }
      }
    }
  }

  const Problem& p_;
  std::vector<std::vector<char>> allowed_;
  std::vector<std::vector<int>> args_;
  std::vector<std::vector<std::vector<Column>>> columns_;  // [v][a]
  std::vector<std::vector<std::vector<int>>> y_;           // [v][o]: columns of y_v[o]
};

int no_callback(CbcModel* /*model*/, int /*where*/) { return 0; }

class IlpSolver final : public Solver {
 public:
  [[nodiscard]] std::string_view name() const override { return "ilp"; }

  [[nodiscard]] core::Result<Solution> solve(const Problem& problem,
                                             const SolveOptions& options) const override {
    const auto start = std::chrono::steady_clock::now();
    DTPLAN_CHECK(validate(problem));
    if (!(options.time_limit_s >= 0))
      return core::Error::bad_input("solve options: negative time limit");
    IlpBuilder b(problem);
    DTPLAN_CHECK(b.build());
    const int cols = static_cast<int>(b.obj.size());
    const int rows = static_cast<int>(b.row_lb.size());
    CoinPackedMatrix matrix(true, b.rows.data(), b.cols.data(), b.vals.data(),
                            static_cast<CoinBigIndex>(b.vals.size()));
    matrix.setDimensions(rows, cols);
    const std::vector<double> col_lb(static_cast<std::size_t>(cols), 0.0);
    const std::vector<double> col_ub(static_cast<std::size_t>(cols), 1.0);
    OsiClpSolverInterface lp;
    lp.messageHandler()->setLogLevel(0);
    lp.loadProblem(matrix, col_lb.data(), col_ub.data(), b.obj.data(), b.row_lb.data(),
                   b.row_ub.data());
    for (int c = 0; c < cols; ++c) lp.setInteger(c);
    CbcModel model(lp);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    data.useSignalHandler_ = false;
    CbcMain0(model, data);
    const std::string seconds = core::format_fixed(std::min(options.time_limit_s, 1e8), 3);
    const char* argv[] = {"dtplan", "-log",          "0",      "-slog", "0",
                          "-sec",   seconds.c_str(), "-solve", "-quit"};
    CbcMain1(static_cast<int>(std::size(argv)), argv, model, no_callback, data);

    Solution out;
    out.stats.input = out.stats.reduced = problem_size(problem);
    out.stats.ilp_variables = cols;
    out.stats.ilp_rows = rows;
    if (model.bestSolution() == nullptr) {
      if (model.isProvenInfeasible()) {
        return core::Error::unsupported("infeasible: the ILP has no solution (CBC proved it)");
      }
      return core::Error::unsupported("ilp: CBC stopped (time limit " + seconds +
                                      " s) before finding a feasible labelling");
    }
    out.labels = b.labels(model.bestSolution());
    DTPLAN_TRY(Evaluation ev, evaluate(problem, out.labels));
    if (!ev.feasible()) {
      return core::Error::internal("ilp: CBC's solution violates " + ev.violations[0].message);
    }
    out.objective_us = ev.total_us;
    out.optimal = model.isProvenOptimal();
    out.lower_bound_us =
        out.optimal ? ev.total_us : std::min(ev.total_us, model.getBestPossibleObjValue());
    if (!out.optimal) out.stats.stop_reason = "time_limit";
    out.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

}  // namespace

bool ilp_available() { return true; }

core::Result<std::unique_ptr<Solver>> make_ilp_solver() {
  return std::unique_ptr<Solver>(std::make_unique<IlpSolver>());
}

#else

bool ilp_available() { return false; }

core::Result<std::unique_ptr<Solver>> make_ilp_solver() {
  return core::Error::backend_missing("solver 'ilp': dtplan was built without COIN-OR CBC");
}

#endif

}  // namespace dtplan::solve
