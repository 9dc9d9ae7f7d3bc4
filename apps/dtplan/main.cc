// dtplan: plan, price, simulate and verify distributed tensor sharding.
// Parses the command line with CLI11, dispatches to a subcommand and maps errors to exit codes.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "command.h"
#include "core/strings.h"
#include "output.h"
#include "usage_error.h"
#include "version.h"

namespace {

using dtplan::cli::Action;
using dtplan::cli::commands;

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.emplace_back(c.name);
  return names;
}

// The first argument that is not an option names the subcommand; a mistyped one gets a
// suggestion before CLI11 sees it. Returns an exit code, or -1 to continue.
int check_subcommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    std::vector<std::string> names = command_names();
    for (const auto& n : names) {
      if (n == arg) return -1;
    }
    std::cerr << "dtplan: error: unknown command '" << dtplan::core::escape_controls(arg) << "'.";
    if (auto near = dtplan::core::closest_name(arg, names)) {
      std::cerr << " Did you mean '" << *near << "'?";
    }
    std::cerr << " Run 'dtplan --help' for the list of commands.\n";
    return 2;
  }
  return -1;
}

int run(int argc, char** argv) {
  CLI::App app{"dtplan: plan, price, simulate and verify distributed tensor sharding", "dtplan"};
  app.set_version_flag("--version", std::string("dtplan ") + dtplan::cli::kVersion);
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log what dtplan does on stderr");

  std::vector<Action> actions(commands().size());
  std::vector<CLI::App*> subs;
  for (std::size_t i = 0; i < commands().size(); ++i) {
    const auto& c = commands()[i];
    CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.summary));
    subs.push_back(sub);
    actions[i] = c.setup(*sub);
  }

  if (int code = check_subcommand(argc, argv); code >= 0) return code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // every usage error: one line naming the flag, exit 2
    return dtplan::cli::report_usage_error(app, e);
  }

  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("dtplan", sink));
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_pattern("dtplan: %l: %v");

  for (std::size_t i = 0; i < subs.size(); ++i) {
    if (subs[i]->parsed()) return actions[i]();
  }
  return 2;
}

// The subcommand the command line names, for errors reported after it ran: the first argument that
// is not an option ("" when there is none).
std::string_view named_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') return argv[i];
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Edge cost matrices of 3-D meshes are 100-200 KB each and made and dropped by the ten
  // thousand; above glibc's default 128 KiB threshold every one is a fresh mmap whose pages the
  // kernel zeroes (a third of LLaMA3-70B's plan time on 8x8x8). Keep them in the heap instead.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  dtplan::cli::prepare_output();
  int code = 1;
  try {
    code = run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "dtplan: error: out of memory; reduce the problem size (mesh, shapes, layers)\n";
  } catch (const std::exception& e) {
    std::cerr << "dtplan: internal error: " << e.what() << "\n";
  }
  return dtplan::cli::finish_stdout(named_command(argc, argv), code);
}
