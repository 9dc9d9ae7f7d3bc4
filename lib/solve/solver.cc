#include "solve/solver.h"

#include "core/strings.h"
#include "solve/ilp_solver.h"

namespace dtplan::solve {

std::vector<std::string> solver_names() { return {"exact", "greedy", "ilp"}; }

core::Status check_relative_gap(double gap, std::string_view where) {
  if (gap >= 0 && gap < 1) return core::Status{};
  return core::Error::bad_input(std::string(where) + ": " + std::to_string(gap) +
                                " is not a relative gap in [0, 1) (e.g. 1e-4: within 0.01% of "
                                "the optimum; 0: prove it)");
}

core::Result<std::unique_ptr<Solver>> make_solver(std::string_view name) {
  if (name == "exact") return make_exact_solver();
  if (name == "greedy") return make_greedy_solver();
  if (name == "ilp") return make_ilp_solver();
  const std::vector<std::string> names = solver_names();
  std::string message = "solver '" + std::string(name) + "' is not one of exact, greedy, ilp";
  if (auto near = core::closest_name(name, names)) message += " (did you mean '" + *near + "'?)";
  return core::Error::bad_input(message);
}

}  // namespace dtplan::solve
