// Runs in dtplan_mpi_tests (its own process: MPI is initialised once per process), a world of one.
#include "replay/mpi/mpi_environment.h"

#include <doctest/doctest.h>
#include <mpi.h>

#include <string>

#include "mpi_test_env.h"

namespace dtplan::replay {
namespace {

TEST_CASE("mpi environment: one shared initialisation, a world of one without mpirun") {
  auto held = testing::mpi_env();
  auto a = MpiEnvironment::acquire();
  auto b = MpiEnvironment::acquire();
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a.value().get() == b.value().get());
  CHECK(a.value().get() == held.get());
  CHECK(a.value()->world_size() == 1);
  CHECK(a.value()->world_rank() == 0);
  CHECK(a.value()->thread_level() >= MPI_THREAD_SINGLE);
  int initialized = 0;
  MPI_Initialized(&initialized);
  CHECK(initialized == 1);
}

TEST_CASE("mpi environment: MPI errors come back as errors with MPI's text") {
  auto env = testing::mpi_env();
  CHECK(mpi_status(MPI_SUCCESS, "MPI_Barrier").ok());
  // MPI_ERRORS_RETURN is set on MPI_COMM_WORLD: an invalid root returns instead of aborting.
  int value = 0;
  const int rc = MPI_Bcast(&value, 1, MPI_INT, 5, MPI_COMM_WORLD);
  REQUIRE(rc != MPI_SUCCESS);
  const core::Status s = mpi_status(rc, "MPI_Bcast on [0]");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == core::ErrorKind::kInternal);
  CHECK(s.error().message.rfind("MPI_Bcast on [0]: ", 0) == 0);
  CHECK(s.error().message.find("root") != std::string::npos);
  int error_class = 0;
  MPI_Error_class(rc, &error_class);
  CHECK(error_class == MPI_ERR_ROOT);
  CHECK(mpi_error_string(MPI_ERR_COUNT).find("(class " + std::to_string(MPI_ERR_COUNT) + ")") !=
        std::string::npos);
}

}  // namespace
}  // namespace dtplan::replay
