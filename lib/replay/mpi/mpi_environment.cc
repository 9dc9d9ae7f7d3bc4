#include "replay/mpi/mpi_environment.h"

#include <mpi.h>

#include <mutex>

namespace dtplan::replay {

namespace {

std::mutex& environment_mutex() {
  static std::mutex m;
  return m;
}

std::weak_ptr<MpiEnvironment>& current_environment() {
  static std::weak_ptr<MpiEnvironment> env;
  return env;
}

}  // namespace

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return "unknown MPI error code " + std::to_string(code);
  }
  int error_class = code;
  MPI_Error_class(code, &error_class);
  return std::string(text, static_cast<std::size_t>(length)) + " (class " +
         std::to_string(error_class) + ")";
}

core::Status mpi_status(int code, std::string_view what) {
  if (code == MPI_SUCCESS) return {};
  return core::Error::internal(std::string(what) + ": " + mpi_error_string(code));
}

core::Result<std::shared_ptr<MpiEnvironment>> MpiEnvironment::acquire() {
  std::lock_guard<std::mutex> lock(environment_mutex());
  if (std::shared_ptr<MpiEnvironment> env = current_environment().lock()) return env;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) {
    return core::Error::internal(
        "MPI: already finalised in this process (MPI can be initialised once per process)");
  }
  std::shared_ptr<MpiEnvironment> env(new MpiEnvironment());
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {
    DTPLAN_CHECK(
        mpi_status(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &env->thread_level_),
                   "MPI_Init_thread"));
    env->owns_mpi_ = true;
  } else {
    MPI_Query_thread(&env->thread_level_);
  }
  DTPLAN_CHECK(mpi_status(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                          "MPI_Comm_set_errhandler(MPI_COMM_WORLD)"));
  DTPLAN_CHECK(mpi_status(MPI_Comm_size(MPI_COMM_WORLD, &env->world_size_), "MPI_Comm_size"));
  DTPLAN_CHECK(mpi_status(MPI_Comm_rank(MPI_COMM_WORLD, &env->world_rank_), "MPI_Comm_rank"));
  current_environment() = env;
  return env;
}

MpiEnvironment::~MpiEnvironment() {
  if (owns_mpi_) MPI_Finalize();
}

}  // namespace dtplan::replay
