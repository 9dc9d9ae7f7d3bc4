#pragma once
// MpiEnvironment: MPI initialised once per process and finalised when the last user lets go
// (RAII over MPI_Init_thread / MPI_Finalize), with MPI_ERRORS_RETURN on MPI_COMM_WORLD so that
// every MPI failure comes back as an error code that mpi_status() turns into a core::Error.
// Without a launcher (launch.h) MPI_Init makes this process a world of one (a singleton).
//
//   auto env = MpiEnvironment::acquire().value();   // MPI_Init_thread on the first acquire
//   env->world_size(); env->world_rank();
//   // ... the last shared_ptr released: MPI_Finalize
//
// MPI cannot be initialised again after MPI_Finalize: an acquire after the last release fails.
// A process that initialised MPI itself keeps ownership: acquire() then neither initialises nor
// finalises. Only the thread that acquired MPI may call MPI (MPI_THREAD_FUNNELED).

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace dtplan::replay {

class MpiEnvironment {
 public:
  // Errors (kInternal): MPI was finalised already, or MPI_Init_thread failed.
  static core::Result<std::shared_ptr<MpiEnvironment>> acquire();

  [[nodiscard]] int world_size() const { return world_size_; }
  [[nodiscard]] int world_rank() const { return world_rank_; }
  // The thread support MPI granted (MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE).
  [[nodiscard]] int thread_level() const { return thread_level_; }

  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;
  ~MpiEnvironment();

 private:
  MpiEnvironment() = default;
  bool owns_mpi_ = false;
  int world_size_ = 1;
  int world_rank_ = 0;
  int thread_level_ = 0;
};

// MPI's text for an error code, with its error class: "MPI_ERR_ROOT: invalid root (class 8)".
std::string mpi_error_string(int code);

// Ok for MPI_SUCCESS; otherwise kInternal "`what`: <mpi_error_string(code)>".
// Example: mpi_status(MPI_ERR_ROOT, "MPI_Bcast on [0,1]") names the call and "invalid root".
core::Status mpi_status(int code, std::string_view what);

}  // namespace dtplan::replay
