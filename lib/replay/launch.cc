#include "replay/launch.h"

#include <cstdlib>

#include "core/strings.h"

namespace dtplan::replay {

namespace {

// The variables one launcher sets; an empty name means the launcher sets none.
struct LauncherVars {
  Launcher launcher;
  std::string_view size, rank, local_rank, local_size;
};

constexpr LauncherVars kLaunchers[] = {
    {Launcher::kOpenMpi, "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {Launcher::kHydra, "PMI_SIZE", "PMI_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {Launcher::kSlurm, "SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "SLURM_LOCALID", ""},
    {Launcher::kTorchrun, "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
};

// The variable's integer value, nullopt when unset (or when `name` is empty).
core::Result<std::optional<std::int64_t>> read_int(const EnvLookup& env, std::string_view name) {
  if (name.empty()) return std::optional<std::int64_t>();
  std::optional<std::string> text = env(name);
  if (!text.has_value()) return std::optional<std::int64_t>();
  DTPLAN_TRY(std::int64_t v, core::parse_int(*text, "environment variable " + std::string(name)));
  return std::optional<std::int64_t>(v);
}

// Error unless 0 <= index < size.
core::Status check_index(std::string_view index_name, std::int64_t index,
                         std::string_view size_name, std::int64_t size) {
  if (index >= 0 && index < size) return {};
  return core::Error::bad_input("environment variable " + std::string(index_name) + "=" +
                                std::to_string(index) + " is outside [0, " + std::to_string(size) +
                                ") given by " + std::string(size_name));
}

core::Result<LaunchInfo> read_launch(const EnvLookup& env, const LauncherVars& vars,
                                     std::int64_t size) {
  const std::string context = "environment variable " + std::string(vars.size);
  if (size < 1) {
    return core::Error::bad_input(context + "=" + std::to_string(size) + " must be at least 1");
  }
  DTPLAN_TRY(std::optional<std::int64_t> rank, read_int(env, vars.rank));
  if (!rank.has_value()) {
    return core::Error::bad_input(context + " is set but " + std::string(vars.rank) +
                                  " is not: cannot tell this process's rank");
  }
  DTPLAN_CHECK(check_index(vars.rank, *rank, vars.size, size));
  LaunchInfo info{vars.launcher, size, *rank, std::nullopt, std::nullopt};
  DTPLAN_TRY(info.local_rank, read_int(env, vars.local_rank));
  DTPLAN_TRY(info.local_size, read_int(env, vars.local_size));
  if (info.local_size.has_value() && *info.local_size < 1) {
    return core::Error::bad_input("environment variable " + std::string(vars.local_size) + "=" +
                                  std::to_string(*info.local_size) + " must be at least 1");
  }
  if (info.local_rank.has_value()) {
    const std::int64_t bound = info.local_size.value_or(size);
    DTPLAN_CHECK(check_index(vars.local_rank, *info.local_rank,
                             info.local_size ? vars.local_size : vars.size, bound));
  }
  return info;
}

}  // namespace

std::string_view launcher_name(Launcher launcher) {
  switch (launcher) {
    case Launcher::kNone:
      return "none";
    case Launcher::kOpenMpi:
      return "mpirun (Open MPI)";
    case Launcher::kHydra:
      return "mpiexec (Hydra)";
    case Launcher::kSlurm:
      return "srun";
    case Launcher::kTorchrun:
      return "torchrun";
  }
  return "none";
}

core::Result<LaunchInfo> detect_launch(const EnvLookup& env) {
  for (const LauncherVars& vars : kLaunchers) {
    DTPLAN_TRY(std::optional<std::int64_t> size, read_int(env, vars.size));
    if (size.has_value()) return read_launch(env, vars, *size);
  }
  return LaunchInfo{Launcher::kNone, 1, 0, 0, 1};
}

core::Result<LaunchInfo> detect_launch() {
  return detect_launch([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace dtplan::replay
