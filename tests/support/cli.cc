#include "support/cli.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dtplan::testing {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path() {
  char name[] = "/tmp/dtplan_cli_XXXXXX";
  int fd = mkstemp(name);
  if (fd >= 0) close(fd);
  return name;
}

// Runs the shell command `cmd` with stdin empty, capturing its stdout and stderr.
CliResult capture(const std::string& cmd) {
  std::string out_path = temp_path();
  std::string err_path = temp_path();
  std::string full = cmd + " </dev/null >'" + out_path + "' 2>'" + err_path + "'";
  int status = std::system(full.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return r;
}
}  // namespace

CliResult run_cli(const std::string& args) {
  return capture(std::string("cd '") + DTPLAN_SOURCE_DIR + "' && '" + DTPLAN_EXE + "' " + args);
}

CliResult run_script(const std::string& script) {
  std::string quoted = "'";
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  return capture(std::string("cd '") + DTPLAN_SOURCE_DIR + "' && DTPLAN='" + DTPLAN_EXE +
                 "' sh -c " + quoted);
}

bool has_subcommand(const std::string& name) {
  static std::map<std::string, bool> known;
  static std::mutex known_mutex;
  std::lock_guard<std::mutex> lock(known_mutex);
  auto it = known.find(name);
  if (it == known.end()) it = known.emplace(name, run_cli(name + " --help").exit_code == 0).first;
  return it->second;
}

std::string source_path(const std::string& relative) {
  return std::string(DTPLAN_SOURCE_DIR) + "/" + relative;
}

std::string cli_output(const std::string& args) {
  CliResult r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  return r.out;
}

std::string cli_failure(const std::string& args, int code) {
  CliResult r = run_cli(args);
  INFO(r.err);
  CHECK(r.exit_code == code);
  CHECK(r.out.empty());
  return r.err;
}

std::vector<std::string> json_keys(const std::string& object_text) {
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(object_text);
  std::vector<std::string> out;
  for (const auto& [key, value] : doc.items()) out.push_back(key);
  return out;
}

}  // namespace dtplan::testing
