// The subcommand table: one line per subcommand, each defined in cmd_<name>.cc.

#include "command.h"

namespace dtplan::cli {

// Declarations of the setup functions of cmd_<name>.cc, one per line, in table order.
Action setup_mesh(CLI::App& app);
Action setup_redistribute(CLI::App& app);
Action setup_plan(CLI::App& app);
Action setup_simulate(CLI::App& app);
Action setup_compare(CLI::App& app);
Action setup_explain(CLI::App& app);
Action setup_sweep(CLI::App& app);
Action setup_replay(CLI::App& app);
Action setup_cost(CLI::App& app);
Action setup_calibrate(CLI::App& app);
Action setup_list(CLI::App& app);

namespace {
const Command kCommands[] = {
    // {"name", "one-line summary", setup_name},
    {"mesh", "DeviceMesh layouts and every process group of its dims and flattened meshes",
     setup_mesh},
    {"redistribute", "Plan, price and trace a DTensor redistribution between two placements",
     setup_redistribute},
    {"plan", "Choose a sharding strategy for every op of a model and price the plan", setup_plan},
    {"simulate", "Replay a plan's collectives on a fake process group, optionally with real data",
     setup_simulate},
    {"compare", "Plans side by side: step time, memory, collectives and differing placements",
     setup_compare},
    {"explain", "One op of a plan: its strategy, and what each alternative would cost the plan",
     setup_explain},
    {"sweep", "Plan every mesh shape of a world size and rank them by simulated step time",
     setup_sweep},
    {"replay", "Run a plan's collectives on MPI, NCCL or the fake group; time and verify them",
     setup_replay},
    {"cost", "Predict a collective's time and busbw over sizes, like nccl-tests", setup_cost},
    {"calibrate", "Fit a hardware profile's measured tables to nccl-tests logs or replay results",
     setup_calibrate},
    {"list", "List the shipped models, meshes and hardware profiles that names refer to",
     setup_list},
    {"", "", nullptr},  // sentinel, not listed
};
}  // namespace

std::span<const Command> commands() {
  return std::span<const Command>(kCommands, std::size(kCommands) - 1);
}

}  // namespace dtplan::cli
