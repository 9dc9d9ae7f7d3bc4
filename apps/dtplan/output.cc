#include "output.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "core/strings.h"

namespace dtplan::cli {

int report(std::string_view command, const core::Error& error) {
  // One line whatever the message quotes from the input (a name with a newline or an escape).
  std::cerr << "dtplan " << command << ": error: " << core::escape_controls(error.message) << "\n";
  return core::exit_code(error.kind);
}

void print_json(const Json& doc) {
  std::cout << doc.dump(2) << "\n";
  std::cout.flush();
}

void print_text(std::string_view text) {
  std::cout << text;
  std::cout.flush();
}

void add_json_flag(CLI::App& app, bool& target) {
  app.add_flag("--json", target, "Print one JSON document on stdout instead of tables");
}

}  // namespace dtplan::cli
