#pragma once
// The MPI environment of dtplan_mpi_tests: acquired on first use and held until the process exits
// (MPI can be initialised only once per process, so the test cases share one initialisation
// instead of finalising after the first).

#include <memory>

#include "replay/mpi/mpi_environment.h"

namespace dtplan::testing {

inline std::shared_ptr<replay::MpiEnvironment> mpi_env() {
  static const std::shared_ptr<replay::MpiEnvironment> env =
      replay::MpiEnvironment::acquire().value();
  return env;
}

}  // namespace dtplan::testing
