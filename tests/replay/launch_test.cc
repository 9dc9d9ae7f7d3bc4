#include "replay/launch.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

namespace dtplan::replay {
namespace {

using Env = std::map<std::string, std::string, std::less<>>;

core::Result<LaunchInfo> detect(const Env& env) {
  return detect_launch([&](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST_CASE("launch: each launcher's variables") {
  CHECK(detect({}).value() == LaunchInfo{Launcher::kNone, 1, 0, 0, 1});
  CHECK(detect({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "2"}}).value() ==
        LaunchInfo{Launcher::kOpenMpi, 4, 2, std::nullopt, std::nullopt});
  CHECK(detect({{"OMPI_COMM_WORLD_SIZE", "16"},
                {"OMPI_COMM_WORLD_RANK", "9"},
                {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"}})
            .value() == LaunchInfo{Launcher::kOpenMpi, 16, 9, 1, 8});
  CHECK(detect({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}, {"MPI_LOCALRANKID", "1"}}).value() ==
        LaunchInfo{Launcher::kHydra, 2, 1, 1, std::nullopt});
  CHECK(detect({{"SLURM_STEP_NUM_TASKS", "8"}, {"SLURM_PROCID", "5"}, {"SLURM_LOCALID", "1"}})
            .value() == LaunchInfo{Launcher::kSlurm, 8, 5, 1, std::nullopt});
}

TEST_CASE("launch: torchrun, precedence and batch scripts") {
  CHECK(detect({{"WORLD_SIZE", "8"}, {"RANK", "7"}, {"LOCAL_RANK", "3"}, {"LOCAL_WORLD_SIZE", "4"}})
            .value() == LaunchInfo{Launcher::kTorchrun, 8, 7, 3, 4});
  // mpirun inside a torchrun-style environment: Open MPI's variables win.
  CHECK(detect({{"WORLD_SIZE", "8"},
                {"RANK", "7"},
                {"OMPI_COMM_WORLD_SIZE", "2"},
                {"OMPI_COMM_WORLD_RANK", "0"}})
            .value()
            .launcher == Launcher::kOpenMpi);
  // An sbatch script sets SLURM_NTASKS and SLURM_PROCID but is no job step.
  CHECK(detect({{"SLURM_NTASKS", "8"}, {"SLURM_PROCID", "0"}}).value().launcher == Launcher::kNone);
  CHECK(mpi_launcher(Launcher::kOpenMpi));
  CHECK(mpi_launcher(Launcher::kSlurm));
  CHECK_FALSE(mpi_launcher(Launcher::kTorchrun));
  CHECK_FALSE(mpi_launcher(Launcher::kNone));
  CHECK(launcher_name(Launcher::kHydra) == "mpiexec (Hydra)");
}

TEST_CASE("launch: malformed variables name the variable") {
  struct Case {
    Env env;
    std::string needle;
  };
  const Case cases[] = {
      {{{"OMPI_COMM_WORLD_SIZE", "four"}}, "OMPI_COMM_WORLD_SIZE"},
      {{{"OMPI_COMM_WORLD_SIZE", "0"}, {"OMPI_COMM_WORLD_RANK", "0"}}, "must be at least 1"},
      {{{"OMPI_COMM_WORLD_SIZE", "4"}}, "OMPI_COMM_WORLD_RANK is not"},
      {{{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "4"}}, "outside [0, 4)"},
      {{{"PMI_SIZE", "4"}, {"PMI_RANK", "-1"}}, "PMI_RANK=-1"},
      {{{"WORLD_SIZE", "8"}, {"RANK", "1"}, {"LOCAL_RANK", "4"}, {"LOCAL_WORLD_SIZE", "4"}},
       "LOCAL_RANK=4 is outside [0, 4) given by LOCAL_WORLD_SIZE"},
      {{{"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "2"}},
       "SLURM_LOCALID=2 is outside [0, 2) given by SLURM_STEP_NUM_TASKS"},
      {{{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"LOCAL_WORLD_SIZE", "0"}}, "LOCAL_WORLD_SIZE=0"},
  };
  for (const Case& c : cases) {
    auto r = detect(c.env);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == core::ErrorKind::kBadInput);
    CHECK_MESSAGE(r.error().message.find(c.needle) != std::string::npos, r.error().message);
  }
}

}  // namespace
}  // namespace dtplan::replay
