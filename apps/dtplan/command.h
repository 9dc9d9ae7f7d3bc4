#pragma once
// The subcommand table of the dtplan CLI. Each subcommand lives in cmd_<name>.cc: it registers its
// flags on a CLI11 subcommand and returns the action to run once the command line is parsed. The
// action returns the process exit code (DESIGN.md: 0 ok, 1 internal, 2 bad input, 3 unsupported,
// 4 backend not built in).

#include <functional>
#include <span>
#include <string_view>

namespace CLI {
class App;
}

namespace dtplan::cli {

using Action = std::function<int()>;

struct Command {
  std::string_view name;
  std::string_view summary;
  Action (*setup)(CLI::App& app);
};

// Every subcommand, in the order `dtplan --help` lists them.
std::span<const Command> commands();

}  // namespace dtplan::cli
