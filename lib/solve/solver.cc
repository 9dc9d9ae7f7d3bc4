#include "solve/solver.h"

#include <array>
#include <optional>
#include <utility>

#include "core/strings.h"
#include "solve/ilp_solver.h"

namespace dtplan::solve {

namespace {

constexpr std::array<std::pair<SolverKind, std::string_view>, 3> kSolverNames{{
    {SolverKind::kExact, "exact"},
    {SolverKind::kGreedy, "greedy"},
    {SolverKind::kIlp, "ilp"},
}};

constexpr std::array<std::pair<StopReason, std::string_view>, 4> kStopReasonNames{{
    {StopReason::kNone, ""},
    {StopReason::kGap, "gap"},
    {StopReason::kTimeLimit, "time_limit"},
    {StopReason::kPointLimit, "point_limit"},
}};

// The name `value` has in `names`; "?" for a value not there (a cast from out of range).
template <typename E, std::size_t N>
std::string_view name_in(const std::array<std::pair<E, std::string_view>, N>& names, E value) {
  for (const auto& [v, n] : names) {
    if (v == value) return n;
  }
  return "?";
}

// The value named `name` in `names`, if any.
template <typename E, std::size_t N>
std::optional<E> value_named(const std::array<std::pair<E, std::string_view>, N>& names,
                             std::string_view name) {
  for (const auto& [v, n] : names) {
    if (n == name) return v;
  }
  return std::nullopt;
}

}  // namespace

std::string_view name(SolverKind kind) { return name_in(kSolverNames, kind); }

core::Result<SolverKind> parse_solver_kind(std::string_view name) {
  if (auto kind = value_named(kSolverNames, name)) return *kind;
  const std::vector<std::string> names = solver_names();
  std::string message = "solver '" + std::string(name) + "' is not one of exact, greedy, ilp";
  if (auto near = core::closest_name(name, names)) message += " (did you mean '" + *near + "'?)";
  return core::Error::bad_input(message);
}

std::string_view name(StopReason reason) { return name_in(kStopReasonNames, reason); }

core::Result<StopReason> parse_stop_reason(std::string_view name) {
  if (auto reason = value_named(kStopReasonNames, name)) return *reason;
  return core::Error::bad_input("stop reason '" + std::string(name) +
                                "' is not one of gap, time_limit, point_limit (or empty)");
}

std::vector<std::string> solver_names() {
  std::vector<std::string> out;
  for (const auto& [k, n] : kSolverNames) out.emplace_back(n);
  return out;
}

core::Status check_relative_gap(double gap, std::string_view where) {
  if (gap >= 0 && gap < 1) return core::Status{};
  return core::Error::bad_input(std::string(where) + ": " + std::to_string(gap) +
                                " is not a relative gap in [0, 1) (e.g. 1e-4: within 0.01% of "
                                "the optimum; 0: prove it)");
}

core::Status check_solver_available(SolverKind kind) {
  if (kind == SolverKind::kIlp && !ilp_available()) return make_ilp_solver().error();
  return core::Status{};
}

core::Result<std::unique_ptr<Solver>> make_solver(SolverKind kind) {
  switch (kind) {
    case SolverKind::kExact:
      return make_exact_solver();
    case SolverKind::kGreedy:
      return make_greedy_solver();
    case SolverKind::kIlp:
      return make_ilp_solver();
  }
  return core::Error::internal("make_solver: no solver of kind " +
                               std::to_string(static_cast<int>(kind)));
}

}  // namespace dtplan::solve
