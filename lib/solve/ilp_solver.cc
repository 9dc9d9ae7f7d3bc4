#include "solve/ilp_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>

#include "core/child_process.h"
#include "core/units.h"
#include "solve/evaluate.h"

#if DTPLAN_WITH_CBC
#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/ClpEventHandler.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#endif

namespace dtplan::solve {

#if DTPLAN_WITH_CBC
namespace {

constexpr std::int64_t kMaxVariables = std::int64_t{1} << 26;

using Clock = std::chrono::steady_clock;

// The error of a solve that the time limit stopped before CBC had a feasible labelling.
core::Error stopped_early(double time_limit_s, std::string_view where) {
  return core::Error::unsupported(
      "ilp: the time limit of " + core::format_fixed(std::min(time_limit_s, 1e8), 3) +
      " s passed " + std::string(where) + ", before a feasible labelling was found");
}

// Stops CBC's branch and bound (its nodes, heuristics and cut passes) once the wall-clock
// deadline has passed; CBC's own seconds limit is checked only between nodes.
class CbcDeadline final : public CbcEventHandler {
 public:
  explicit CbcDeadline(Clock::time_point deadline) : deadline_(deadline) {}
  CbcAction event(CbcEvent /*event*/) override {
    return Clock::now() >= deadline_ ? stop : noAction;
  }
  [[nodiscard]] CbcEventHandler* clone() const override { return new CbcDeadline(*this); }

 private:
  Clock::time_point deadline_;
};

// Stops CLP's simplex after the iteration in which the deadline passes: the root LP of a large
// formulation alone can take longer than the limit, and CBC does not interrupt it.
class ClpDeadline final : public ClpEventHandler {
 public:
  explicit ClpDeadline(Clock::time_point deadline) : deadline_(deadline) {}
  int event(Event event) override {
    return event == endOfIteration && Clock::now() >= deadline_ ? 0 : -1;
  }
  [[nodiscard]] ClpEventHandler* clone() const override { return new ClpDeadline(*this); }

 private:
  Clock::time_point deadline_;
};

struct Column {
  LabelIndex o = 0;  // consumer label
  LabelIndex j = 0;  // producer label (0 for a node without inputs)
  int col = 0;
};

class IlpBuilder {
 public:
  IlpBuilder(const Problem& p, Clock::time_point deadline) : p_(p), deadline_(deadline) {}

  // The columns and rows; false once the deadline passes first (read once per node).
  bool build() {
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
      if (Clock::now() >= deadline_) return false;
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
        too_large_ = true;
        return false;
      }
    }
    add_rows();
    return Clock::now() < deadline_;
  }

  // Why build() returned false: the formulation is over kMaxVariables (else the deadline).
  [[nodiscard]] bool too_large() const { return too_large_; }

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
  Clock::time_point deadline_;
  bool too_large_ = false;
  std::vector<std::vector<char>> allowed_;
  std::vector<std::vector<int>> args_;
  std::vector<std::vector<std::vector<Column>>> columns_;  // [v][a]
  std::vector<std::vector<std::vector<int>>> y_;           // [v][o]: columns of y_v[o]
};

int no_callback(CbcModel* /*model*/, int /*where*/) { return 0; }

// The constraint matrix in CLP's column-major form (a counting sort of the builder's entries by
// column, linear in their number; CoinPackedMatrix's triplet constructor takes minutes on the
// millions of entries of a 32-layer model).
struct ColumnMajor {
  std::vector<CoinBigIndex> starts;  // cols + 1 offsets into rows and values
  std::vector<int> rows;
  std::vector<double> values;
};

ColumnMajor column_major(const IlpBuilder& b, int cols) {
  ColumnMajor m;
  m.starts.assign(static_cast<std::size_t>(cols) + 1, 0);
  for (int c : b.cols) ++m.starts[static_cast<std::size_t>(c) + 1];
  for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c) m.starts[c + 1] += m.starts[c];
  std::vector<CoinBigIndex> next(m.starts.begin(), m.starts.end() - 1);
  m.rows.resize(b.vals.size());
  m.values.resize(b.vals.size());
  for (std::size_t k = 0; k < b.vals.size(); ++k) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(b.cols[k])]++);
    m.rows[at] = b.rows[k];
    m.values[at] = b.vals[k];
  }
  return m;
}

// What CBC found, as the child process that ran it reports it.
struct CbcOutcome {
  enum class Kind : std::uint8_t { kSolution, kInfeasible, kNone } kind = Kind::kNone;
  bool optimal = false;
  double best_possible = 0;
  std::vector<LabelIndex> labels;
};

std::string encode(const CbcOutcome& o) {
  std::string text = std::to_string(static_cast<int>(o.kind)) + " " + (o.optimal ? "1" : "0");
  char bound[64];
  std::snprintf(bound, sizeof bound, " %.17g", o.best_possible);
  text += bound;
  for (LabelIndex l : o.labels) text += " " + std::to_string(l);
  return text;
}

CbcOutcome decode(const std::string& text) {
  std::istringstream in(text);
  CbcOutcome o;
  int kind = 0, optimal = 0;
  in >> kind >> optimal >> o.best_possible;
  o.kind = static_cast<CbcOutcome::Kind>(kind);
  o.optimal = optimal != 0;
  for (LabelIndex l = 0; in >> l;) o.labels.push_back(l);
  return o;
}

// Loads the formulation into CBC and solves it, stopping its search at `stop_at` (CBC's elapsed
// seconds limit and the event handlers). Runs in the child process of run_until.
CbcOutcome run_cbc(const IlpBuilder& b, Clock::time_point stop_at) {
  const int cols = static_cast<int>(b.obj.size());
  const int rows = static_cast<int>(b.row_lb.size());
  const ColumnMajor matrix = column_major(b, cols);
  const std::vector<double> col_lb(static_cast<std::size_t>(cols), 0.0);
  const std::vector<double> col_ub(static_cast<std::size_t>(cols), 1.0);
  OsiClpSolverInterface lp;
  lp.messageHandler()->setLogLevel(0);
  lp.loadProblem(cols, rows, matrix.starts.data(), matrix.rows.data(), matrix.values.data(),
                 col_lb.data(), col_ub.data(), b.obj.data(), b.row_lb.data(), b.row_ub.data());
  for (int c = 0; c < cols; ++c) lp.setInteger(c);
  const ClpDeadline lp_deadline(stop_at);
  lp.getModelPtr()->passInEventHandler(&lp_deadline);
  CbcModel model(lp);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  const CbcDeadline search_deadline(stop_at);
  model.passInEventHandler(&search_deadline);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  data.useSignalHandler_ = false;
  CbcMain0(model, data);
  const double left_s = std::chrono::duration<double>(stop_at - Clock::now()).count();
  const std::string seconds = core::format_fixed(std::max(left_s, 0.001), 3);
  const char* argv[] = {"dtplan", "-log",          "0",      "-slog", "0", "-timeMode", "elapsed",
                        "-sec",   seconds.c_str(), "-solve", "-quit"};
  CbcMain1(static_cast<int>(std::size(argv)), argv, model, no_callback, data);
  CbcOutcome out;
  if (model.bestSolution() != nullptr) {
    out.kind = CbcOutcome::Kind::kSolution;
    out.labels = b.labels(model.bestSolution());
    out.optimal = model.isProvenOptimal();
    out.best_possible = model.getBestPossibleObjValue();
  } else if (model.isProvenInfeasible()) {
    out.kind = CbcOutcome::Kind::kInfeasible;
  }
  return out;
}

// The share of the time left after building that CBC's own search may use; the rest is the
// margin in which it stops cooperatively and reports its incumbent before the child is killed.
constexpr double kCbcShare = 0.9;

class IlpSolver final : public Solver {
 public:
  [[nodiscard]] std::string_view name() const override { return "ilp"; }

  [[nodiscard]] core::Result<Solution> solve(const Problem& problem,
                                             const SolveOptions& options) const override {
    const Clock::time_point start = Clock::now();
    DTPLAN_CHECK(validate(problem));
    if (!(options.time_limit_s >= 0))
      return core::Error::bad_input("solve options: negative time limit");
    // Wall time from here on, model building included (capped: a limit of 1e300 s means none).
    const Clock::time_point deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(std::min(options.time_limit_s, 1e8)));
    IlpBuilder b(problem, deadline);
    if (!b.build()) {
      if (b.too_large()) {
        return core::Error::unsupported("ilp: the formulation needs more than " +
                                        std::to_string(kMaxVariables) + " variables");
      }
      return stopped_early(options.time_limit_s, "while building the ILP");
    }
    // CBC's presolve and preprocessing cannot be interrupted: it runs in a child process that is
    // killed at the deadline, and is asked to stop its search a little before it.
    const Clock::time_point stop_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                         kCbcShare * (deadline - Clock::now()));
    DTPLAN_TRY(std::optional<std::string> reply,
               core::run_until(deadline, [&] { return encode(run_cbc(b, stop_at)); }));
    if (!reply) return stopped_early(options.time_limit_s, "in CBC");
    const CbcOutcome cbc = decode(*reply);
    if (cbc.kind == CbcOutcome::Kind::kInfeasible) {
      return core::Error::unsupported("infeasible: the ILP has no solution (CBC proved it)");
    }
    if (cbc.kind != CbcOutcome::Kind::kSolution)
      return stopped_early(options.time_limit_s, "in CBC");
    Solution out;
    out.stats.input = out.stats.reduced = problem_size(problem);
    out.stats.ilp_variables = static_cast<std::int64_t>(b.obj.size());
    out.stats.ilp_rows = static_cast<std::int64_t>(b.row_lb.size());
    out.labels = cbc.labels;
    if (out.labels.size() != problem.nodes.size()) {
      return core::Error::internal("ilp: CBC's child process returned a malformed labelling");
    }
    DTPLAN_TRY(Evaluation ev, evaluate(problem, out.labels));
    if (!ev.feasible()) {
      return core::Error::internal("ilp: CBC's solution violates " + ev.violations[0].message);
    }
    out.objective_us = ev.total_us;
    out.optimal = cbc.optimal;
    out.lower_bound_us = out.optimal ? ev.total_us : std::min(ev.total_us, cbc.best_possible);
    if (!out.optimal) out.stats.stop_reason = StopReason::kTimeLimit;
    out.time_s = std::chrono::duration<double>(Clock::now() - start).count();
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
