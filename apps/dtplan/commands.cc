// The subcommand table: one line per subcommand, defined in cmd_<name>.cc.

#include "command.h"

namespace dtplan::cli {

static constexpr Command kCommands[] = {
    {"", "", nullptr},
};

std::span<const Command> commands() { return std::span<const Command>(kCommands).first(0); }

}  // namespace dtplan::cli
