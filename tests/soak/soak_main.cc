// dtplan_soak: random verified redistributions through the dtplan executable (scripts/soak.sh;
// ctest runs 500 cases). Each case (soak_case.h) runs `dtplan redistribute --verify --json` with
// the greedy and min-cost planners, merging on and off, and with auto, and asserts:
//   a. every exit code is 0, 2 or 3; a refusal prints one line "dtplan redistribute: error: ..."
//      and nothing on stdout; every planner refuses bad input (2) alike;
//   b. every plan verifies with 0 wrong elements;
//   c. --verify finding replicas that differ bitwise implies a divergent_replicas warning;
//   d. min-cost total <= greedy total (same merge flag, and min-cost merged <= greedy unmerged),
//      and min-cost plans whatever greedy plans;
//   e. merged <= unmerged for each planner, or (greedy, which merges unconditionally as DTensor
//      does) a merge_costs_more warning says why;
//   f. auto's total is that of the planner it resolved to.
// Totals compare in integer picoseconds (the plans' own unit).
//
//   dtplan_soak --dtplan build/rel/apps/dtplan --cases 10000 [--seed 1] [--jobs 2]
//
// Prints, for each failure in case order, the reason and the exact command line; then how often
// the properties were put to the test ("soak: P plans verified, D with replicas that differ
// bitwise, M greedy merges priced above their unmerged plan") and the summary "soak: N cases,
// X verified, Y refused (exit 2/3), F failures" (verified: some planner planned and verified the
// case; refused: every planner refused it). Exit status 0 iff no failure.

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "soak/soak_case.h"

extern char** environ;

namespace dtplan::soak {
namespace {

using Json = nlohmann::json;

constexpr int kTimeoutSeconds = 300;

struct Output {
  int code = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

std::string quote(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of(
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                                       "qrstuvwxyz0123456789_,./=:-+") == std::string::npos;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += quote(a);
  }
  return out;
}

// Runs argv without a shell and collects its output; a run past kTimeoutSeconds is killed.
Output run(const std::vector<std::string>& argv) {
  Output o;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return o;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
    posix_spawn_file_actions_addclose(&actions, fd);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    o.err = "cannot run " + argv[0] + ": " + std::strerror(spawned);
    return o;
  }
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&o.out, &o.err};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutSeconds);
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 && !killed) {
      kill(pid, SIGKILL);
      killed = true;
    }
    if (poll(fds, 2, killed ? 1000 : static_cast<int>(left.count())) < 0) break;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buffer[65536];
      const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[k]->append(buffer, static_cast<std::size_t>(n));
      } else {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (killed) o.err += "\n(killed after " + std::to_string(kTimeoutSeconds) + " s)";
  return o;
}

enum Planner { kGreedy, kMinCost, kAuto };
constexpr const char* kPlannerNames[] = {"greedy", "min-cost", "auto"};

struct Attempt {
  Planner planner = kGreedy;
  bool merge = true;
  std::vector<std::string> argv;
  Output output;
  Json plan;                  // exit 0 only
  std::int64_t total_ps = 0;  // exit 0 only

  [[nodiscard]] bool ok() const { return output.code == 0; }
  [[nodiscard]] bool warned(const std::string& reason) const {
    for (const Json& w : plan.at("warnings")) {
      if (w.at("reason") == reason) return true;
    }
    return false;
  }
};

struct Result {
  bool verified = false;
  bool refused = false;
  std::vector<std::string> failures;  // "reason\n  command"
  int plans = 0;                      // runs that planned and verified
  int divergent = 0;                  // of those, plans whose replicas differ bitwise
  int costly = 0;                     // greedy merged plans priced above their unmerged plans
};

class Checker {
 public:
  explicit Checker(Result& r) : r_(r) {}
  void fail(const Attempt& a, const std::string& why) {
    r_.failures.push_back(why + "\n  command: " + command_line(a.argv));
  }

 private:
  Result& r_;
};

// a, b (exit 0 runs: parses the JSON), c.
void check_attempt(Attempt& a, Checker& check) {
  const Output& o = a.output;
  if (o.code != 0 && o.code != 2 && o.code != 3) {
    check.fail(a, "exit " + std::to_string(o.code) + ": " + o.err);
    return;
  }
  if (o.code != 0) {
    const std::string prefix = "dtplan redistribute: error: ";
    const bool one_line = o.err.size() > prefix.size() && o.err.back() == '\n' &&
                          o.err.find('\n') == o.err.size() - 1;
    if (!o.out.empty() || !one_line || o.err.compare(0, prefix.size(), prefix) != 0) {
      check.fail(a, "exit " + std::to_string(o.code) + " without one error line: " + o.err);
    }
    return;
  }
  try {
    a.plan = Json::parse(o.out);
    a.total_ps = std::llround(a.plan.at("total_cost_us").get<double>() * 1e6);
    const Json& v = a.plan.at("verify");
    if (v.at("wrong_elements").get<std::int64_t>() != 0) {
      check.fail(a, "wrong elements: " + v.dump());
    }
    if (!v.at("replicas_bitwise_equal").get<bool>() && !a.warned("divergent_replicas")) {
      check.fail(a, "replicas differ bitwise without a divergent_replicas warning: " + v.dump());
    }
  } catch (const std::exception& e) {
    a.plan = Json();
    a.output.code = -1;
    check.fail(a, std::string("unreadable JSON output: ") + e.what());
  }
}

// d, e, f.
void check_totals(std::vector<Attempt>& runs, Checker& check) {
  auto find = [&](Planner p, bool merge) -> Attempt* {
    for (Attempt& a : runs) {
      if (a.planner == p && a.merge == merge) return &a;
    }
    return nullptr;
  };
  for (bool merge : {true, false}) {
    Attempt* g = find(kGreedy, merge);
    Attempt* m = find(kMinCost, merge);
    if (g->ok() && !m->ok()) check.fail(*m, "min-cost refused what greedy planned");
    if (g->ok() && m->ok() && m->total_ps > g->total_ps) {
      check.fail(*m, "min-cost total " + std::to_string(m->total_ps) + " ps > greedy total " +
                         std::to_string(g->total_ps) + " ps");
    }
    if ((g->output.code == 2) != (m->output.code == 2)) {
      check.fail(*g, "greedy and min-cost disagree on bad input (exit 2)");
    }
  }
  for (Planner p : {kGreedy, kMinCost}) {
    Attempt* merged = find(p, true);
    Attempt* apart = find(p, false);
    if (!merged->ok() || !apart->ok() || merged->total_ps <= apart->total_ps) continue;
    if (p == kMinCost || !merged->warned("merge_costs_more")) {
      check.fail(*merged, std::string(kPlannerNames[p]) + " merged total " +
                              std::to_string(merged->total_ps) + " ps > unmerged " +
                              std::to_string(apart->total_ps) + " ps, no merge_costs_more note");
    }
  }
  Attempt* g_apart = find(kGreedy, false);
  Attempt* m_merged = find(kMinCost, true);
  if (g_apart->ok() && m_merged->ok() && m_merged->total_ps > g_apart->total_ps) {
    check.fail(*m_merged, "min-cost merged total > greedy unmerged total");
  }
  for (Attempt& a : runs) {
    if (a.planner != kAuto || !a.ok()) continue;
    const Planner resolved = a.plan.at("planner") == "greedy" ? kGreedy : kMinCost;
    const Attempt* same = find(resolved, a.merge);
    if (!same->ok() || same->total_ps != a.total_ps) {
      check.fail(a, "auto (" + a.plan.at("planner").get<std::string>() +
                        ") differs from that planner's own plan");
    }
  }
}

Result run_case(const std::string& dtplan, std::uint64_t seed, std::int64_t index) {
  const Case c = make_case(seed, index);
  Rng rng(seed * 31 + static_cast<std::uint64_t>(index));
  std::vector<Attempt> runs;
  for (Planner p : {kGreedy, kMinCost}) {
    for (bool merge : {true, false}) runs.push_back({p, merge, {}, {}, {}, 0});
  }
  runs.push_back({kAuto, rng.percent(50), {}, {}, {}, 0});
  Result r;
  Checker check(r);
  for (Attempt& a : runs) {
    a.argv = {dtplan};
    a.argv.insert(a.argv.end(), c.args.begin(), c.args.end());
    a.argv.insert(a.argv.end(), {"--planner", kPlannerNames[a.planner]});
    if (!a.merge) a.argv.push_back("--no-merge");
    a.output = run(a.argv);
    check_attempt(a, check);
  }
  if (r.failures.empty()) check_totals(runs, check);
  for (const Attempt& a : runs) {
    if (!a.ok()) continue;
    ++r.plans;
    r.divergent += a.plan.at("verify").at("replicas_bitwise_equal").get<bool>() ? 0 : 1;
  }
  if (runs[0].ok() && runs[1].ok() && runs[0].total_ps > runs[1].total_ps) ++r.costly;
  const bool any_ok =
      std::any_of(runs.begin(), runs.end(), [](const Attempt& a) { return a.ok(); });
  r.verified = r.failures.empty() && any_ok;
  r.refused = r.failures.empty() && !any_ok;
  return r;
}

struct Args {
  std::string dtplan;
  std::int64_t cases = 0;
  std::uint64_t seed = 1;
  int jobs = 2;
};

std::optional<Args> parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    try {
      if (flag == "--dtplan") {
        a.dtplan = value;
      } else if (flag == "--cases") {
        a.cases = std::stoll(value);
      } else if (flag == "--seed") {
        a.seed = std::stoull(value);
      } else if (flag == "--jobs") {
        a.jobs = std::stoi(value);
      } else {
        return std::nullopt;
      }
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (argc % 2 == 0 || a.dtplan.empty() || a.cases < 0 || a.jobs < 1) return std::nullopt;
  return a;
}

}  // namespace
}  // namespace dtplan::soak

int main(int argc, char** argv) {
  using namespace dtplan::soak;
  const std::optional<Args> args = parse_args(argc, argv);
  if (!args) {
    std::cerr << "usage: dtplan_soak --dtplan PATH --cases N [--seed S] [--jobs J]\n";
    return 2;
  }
  std::vector<Result> results(static_cast<std::size_t>(args->cases));
  std::atomic<std::int64_t> next{0};
  auto worker = [&] {
    for (std::int64_t i = next++; i < args->cases; i = next++) {
      results[static_cast<std::size_t>(i)] = run_case(args->dtplan, args->seed, i);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < args->jobs; ++j) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  std::int64_t verified = 0, refused = 0, failures = 0, plans = 0, divergent = 0, costly = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    plans += results[i].plans;
    divergent += results[i].divergent;
    costly += results[i].costly;
    verified += results[i].verified ? 1 : 0;
    refused += results[i].refused ? 1 : 0;
    failures += results[i].failures.empty() ? 0 : 1;
    for (const std::string& f : results[i].failures) {
      std::cout << "soak: case " << i << " (seed " << args->seed << ") failed: " << f << "\n";
    }
  }
  std::cout << "soak: " << plans << " plans verified, " << divergent
            << " with replicas that differ bitwise, " << costly
            << " greedy merges priced above their unmerged plan\n";
  std::cout << "soak: " << args->cases << " cases, " << verified << " verified, " << refused
            << " refused (exit 2/3), " << failures << " failures\n";
  return failures == 0 ? 0 : 1;
}
