// The step engine on random plans: against a one-pass oracle without contention (the issue
// order is topological, so one pass over it computes every start), and the invariants of the
// contention model and of the critical path with it.
#include "sim/step_engine.h"

#include <doctest/doctest.h>

#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>

#include "sim/link_sharing.h"
#include "sim/step_program.h"
#include "sim/timeline.h"
#include "support/plan_builder.h"
#include "support/profiles.h"

namespace dtplan::sim {
namespace {

using testing::mesh_cases;
using testing::MeshCase;
using testing::PlanBuilder;
using testing::random_plan;

// start/end per (slot, task) from a timeline with every rank's events.
struct Times {
  std::vector<double> start, end;
  std::size_t tasks = 0;
};

Times times_of(const Timeline& tl) {
  Times t;
  t.tasks = tl.program.tasks.size();
  t.start.assign(t.tasks * tl.program.ranks.size(), -1);
  t.end = t.start;
  for (const TimelineEvent& e : tl.events) {
    const auto slot = static_cast<std::size_t>(
        std::lower_bound(tl.program.ranks.begin(), tl.program.ranks.end(), e.rank) -
        tl.program.ranks.begin());
    t.start[slot * t.tasks + static_cast<std::size_t>(e.task)] = e.start_us;
    t.end[slot * t.tasks + static_cast<std::size_t>(e.task)] = e.end_us;
  }
  return t;
}

double ready_of(const StepProgram& p, const std::vector<std::int32_t>& prev, const Times& t,
                std::size_t slot, std::size_t task) {
  double r = 0;
  for (std::int32_t d : p.tasks[task].deps)
    r = std::max(r, t.end[slot * t.tasks + static_cast<std::size_t>(d)]);
  if (prev[task] >= 0)
    r = std::max(r, t.end[slot * t.tasks + static_cast<std::size_t>(prev[task])]);
  return r;
}

// One pass in issue order: every task starts when ready (a collective when its whole group is).
Times oracle(const StepProgram& p) {
  Times t;
  t.tasks = p.tasks.size();
  const std::size_t slots = p.ranks.size();
  t.start.assign(t.tasks * slots, 0);
  t.end = t.start;
  const std::vector<std::int32_t> prev = stream_predecessors(p);
  for (std::size_t k = 0; k < t.tasks; ++k) {
    const Task& task = p.tasks[k];
    std::vector<double> ready(slots);
    for (std::size_t s = 0; s < slots; ++s) ready[s] = ready_of(p, prev, t, s, k);
    if (task.kind == TaskKind::kCollective) {
      const GroupPartition& part = p.partitions[static_cast<std::size_t>(task.partition)];
      for (std::int32_t g = 0; g < part.groups(); ++g) {
        double start = 0;
        for (std::int64_t i = 0; i < part.size; ++i) {
          start = std::max(start, ready[static_cast<std::size_t>(
                                      part.members[static_cast<std::size_t>(g * part.size + i)])]);
        }
        for (std::int64_t i = 0; i < part.size; ++i) {
          const auto s =
              static_cast<std::size_t>(part.members[static_cast<std::size_t>(g * part.size + i)]);
          ready[s] = start;
        }
      }
    }
    for (std::size_t s = 0; s < slots; ++s) {
      t.start[s * t.tasks + k] = ready[s];
      t.end[s * t.tasks + k] = ready[s] + task.alone_us;
    }
  }
  return t;
}

Timeline run(const plan::Plan& plan, TimelineOptions o) {
  o.all_ranks = true;
  auto tl = simulate_step(plan, o);
  if (!tl.ok()) FAIL(tl.error().message);
  return std::move(tl).value();
}

void check_path(const Timeline& tl) {
  REQUIRE(!tl.critical_path.empty());
  CHECK(tl.critical_path.front().start_us == 0);
  CHECK(tl.critical_path.front().binding == Binding::kStart);
  CHECK(tl.critical_path.back().end_us == tl.step_time_us);
  for (std::size_t k = 1; k < tl.critical_path.size(); ++k) {
    CHECK(tl.critical_path[k].start_us == tl.critical_path[k - 1].end_us);
    CHECK(tl.critical_path[k].task > tl.critical_path[k - 1].task);
  }
}

TEST_CASE("step engine: without contention it equals the one-pass oracle") {
  std::mt19937_64 rng(20240607);
  for (int iter = 0; iter < 60; ++iter) {
    const MeshCase& m = mesh_cases()[static_cast<std::size_t>(iter) % mesh_cases().size()];
    const plan::Plan plan = random_plan(rng, m);
    TimelineOptions o;
    o.contention = false;
    o.prefetch_depth = static_cast<std::int32_t>(iter % 4) - 1;
    const Timeline tl = run(plan, o);
    const Times got = times_of(tl);
    const Times want = oracle(tl.program);
    CAPTURE(iter);
    CHECK(got.start == want.start);
    CHECK(got.end == want.end);
    check_path(tl);
  }
}

TEST_CASE("step engine: contention invariants on random plans") {
  std::mt19937_64 rng(77);
  const cost::HardwareProfile hw = testing::profile("h100-dgx");
  int stretched = 0, collectives = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const MeshCase& m = mesh_cases()[static_cast<std::size_t>(iter) % mesh_cases().size()];
    const plan::Plan plan = random_plan(rng, m);
    TimelineOptions o;
    o.prefetch_depth = static_cast<std::int32_t>(iter % 3);
    if (iter % 2 == 0) {
      o.hardware = hw;
      o.hardware->node.gpus_per_node = static_cast<std::int32_t>(m.gpus_per_node);
      o.hardware->node.nics_per_node = iter % 4 == 0 ? 1 : 8;
      // Link contention alone: compute keeps its own speed (SM sharing: throughput_test.cc).
      o.hardware->compute.nccl_overlap_compute_factor = 1.0;
    }
    const Timeline tl = run(plan, o);
    CAPTURE(iter);
    const Times t = times_of(tl);
    const StepProgram& p = tl.program;
    const std::vector<std::int32_t> prev = stream_predecessors(p);
    for (std::size_t k = 0; k < p.tasks.size(); ++k) {
      const Task& task = p.tasks[k];
      for (std::size_t s = 0; s < p.ranks.size(); ++s) {
        const double start = t.start[s * t.tasks + k], end = t.end[s * t.tasks + k];
        const double ready = ready_of(p, prev, t, s, k);
        if (task.kind != TaskKind::kCollective) {
          CHECK(start == ready);
          CHECK(end == start + task.alone_us);
          continue;
        }
        CHECK(start >= ready);
        CHECK(end - start >= task.alone_us * (1 - 1e-12));
        ++collectives;
        if (end - start > task.alone_us * 1.001) ++stretched;
        const GroupPartition& part = p.partitions[static_cast<std::size_t>(task.partition)];
        const std::int32_t g = part.group_of[s];
        double latest = 0;
        for (std::int64_t i = 0; i < part.size; ++i) {
          const auto m2 =
              static_cast<std::size_t>(part.members[static_cast<std::size_t>(g * part.size + i)]);
          CHECK(t.start[m2 * t.tasks + k] == start);
          CHECK(t.end[m2 * t.tasks + k] == end);
          latest = std::max(latest, ready_of(p, prev, t, m2, k));
        }
        CHECK(start == latest);
      }
    }
    for (const RankSummary& r : tl.ranks) {
      CHECK(r.exposed_communication_us <= r.communication_busy_us + 1e-9);
      CHECK(r.compute_busy_us + r.exposed_communication_us <= r.end_us + 1e-9);
      CHECK(r.end_us <= tl.step_time_us);
    }
    check_path(tl);
    // Deterministic.
    CHECK(run(plan, o) == tl);
  }
  // The random plans do exercise the model.
  CHECK(collectives > 1000);
  CHECK(stretched > collectives / 20);
}

// Processor sharing by brute force (link_sharing.h): from one instant to the next, every instance
// in its bandwidth part runs at 1 / (the most instances in their bandwidth part on one of its
// links), all recounted at every instant; what ends at an instant is processed before time moves.
Times sharing_oracle(const StepProgram& p, const LinkMap& links) {
  const std::size_t slots = p.ranks.size(), tasks = p.tasks.size();
  Times t;
  t.tasks = tasks;
  t.start.assign(tasks * slots, -1);
  t.end = t.start;
  const std::vector<std::int32_t> prev = stream_predecessors(p);
  std::vector<std::vector<std::size_t>> next(tasks);  // successors on the slot
  std::vector<int> pending(tasks * slots);
  for (std::size_t k = 0; k < tasks; ++k) {
    for (std::int32_t d : p.tasks[k].deps) next[static_cast<std::size_t>(d)].push_back(k);
    if (prev[k] >= 0) next[static_cast<std::size_t>(prev[k])].push_back(k);
    for (std::size_t s = 0; s < slots; ++s)
      pending[s * tasks + k] = static_cast<int>(p.tasks[k].deps.size()) + (prev[k] >= 0 ? 1 : 0);
  }
  struct Item {
    std::size_t task;
    std::int32_t slot_or_group;
    int kind;  // 0 compute end, 1 latency end, 2 instance end, 3 flow (bandwidth part)
    double when;
    double remaining;
  };
  std::vector<Item> items;
  std::map<std::pair<std::size_t, std::int32_t>, std::int64_t> arrived;
  auto members = [&](std::size_t k, std::int32_t g) {
    const GroupPartition& part = p.partitions[static_cast<std::size_t>(p.tasks[k].partition)];
    return std::span<const std::int32_t>(
        part.members.data() + static_cast<std::size_t>(g * part.size),
        static_cast<std::size_t>(part.size));
  };
  auto links_of = [&](std::size_t k, std::int32_t g) {
    const auto q = static_cast<std::size_t>(p.tasks[k].partition);
    const auto b = static_cast<std::size_t>(links.offsets[q][static_cast<std::size_t>(g)]);
    const auto e = static_cast<std::size_t>(links.offsets[q][static_cast<std::size_t>(g) + 1]);
    return std::span<const std::int32_t>(links.links_of[q].data() + b, e - b);
  };
  auto start = [&](std::size_t s, std::size_t k, double now) {
    const Task& task = p.tasks[k];
    if (task.kind != TaskKind::kCollective) {
      t.start[s * tasks + k] = now;
      items.push_back({k, static_cast<std::int32_t>(s), 0, now + task.alone_us, 0});
      return;
    }
    const GroupPartition& part = p.partitions[static_cast<std::size_t>(task.partition)];
    const std::int32_t g = part.group_of[s];
    if (++arrived[{k, g}] < part.size) return;
    for (std::int32_t m : members(k, g)) t.start[static_cast<std::size_t>(m) * tasks + k] = now;
    items.push_back({k, g, 1, now + task.latency_us, 0});
  };
  for (std::size_t s = 0; s < slots; ++s) {
    for (std::size_t k = 0; k < tasks; ++k) {
      if (pending[s * tasks + k] == 0) start(s, k, 0.0);
    }
  }
  double now = 0;
  while (!items.empty()) {
    std::vector<int> flows(static_cast<std::size_t>(links.links), 0);
    for (const Item& it : items) {
      if (it.kind == 3) {
        for (std::int32_t l : links_of(it.task, it.slot_or_group))
          ++flows[static_cast<std::size_t>(l)];
      }
    }
    auto share = [&](const Item& it) {
      int n = 1;
      for (std::int32_t l : links_of(it.task, it.slot_or_group))
        n = std::max(n, flows[static_cast<std::size_t>(l)]);
      return n;
    };
    double when = std::numeric_limits<double>::infinity();
    for (const Item& it : items)
      when = std::min(when, it.kind == 3 ? now + it.remaining * share(it) : it.when);
    for (Item& it : items) {
      if (it.kind == 3) it.remaining -= (when - now) / share(it);
    }
    now = when;
    // Everything ending now, including what starts and ends now.
    for (bool again = true; again;) {
      again = false;
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Item it = items[i];
        const bool ends = it.kind == 3 ? it.remaining <= 1e-9 * (1 + now) : it.when <= now;
        if (!ends) continue;
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
        again = true;
        const Task& task = p.tasks[it.task];
        if (it.kind == 1) {
          const double work = std::max(0.0, task.alone_us - task.latency_us);
          const bool shared = !links_of(it.task, it.slot_or_group).empty() && work > 0;
          items.push_back({it.task, it.slot_or_group, shared ? 3 : 2, now + work, work});
          break;
        }
        std::vector<std::size_t> done;
        if (it.kind == 0) {
          done.push_back(static_cast<std::size_t>(it.slot_or_group));
        } else {
          for (std::int32_t m : members(it.task, it.slot_or_group))
            done.push_back(static_cast<std::size_t>(m));
        }
        for (std::size_t s : done) {
          t.end[s * tasks + it.task] = now;
          for (std::size_t k : next[it.task]) {
            if (--pending[s * tasks + k] == 0) start(s, k, now);
          }
        }
        break;
      }
    }
  }
  return t;
}

TEST_CASE("step engine: with contention it equals processor sharing by brute force") {
  std::mt19937_64 rng(5150);
  const cost::HardwareProfile hw = testing::profile("h100-dgx");
  for (int iter = 0; iter < 40; ++iter) {
    const MeshCase& m = mesh_cases()[static_cast<std::size_t>(iter) % mesh_cases().size()];
    const plan::Plan plan = random_plan(rng, m);
    TimelineOptions o;
    o.prefetch_depth = static_cast<std::int32_t>(iter % 3) - 1;
    o.hardware = hw;
    o.hardware->node.gpus_per_node = static_cast<std::int32_t>(m.gpus_per_node);
    o.hardware->node.nics_per_node = iter % 4 == 0 ? 1 : 8;
    auto program = build_step_program(plan, o);
    REQUIRE(program.ok());
    const LinkMap links = make_link_map(*program, o.hardware);
    auto got = run_step_engine(*program, links, true, o.max_rank_tasks);
    REQUIRE(got.ok());
    const Times want = sharing_oracle(*program, links);
    CAPTURE(iter);
    for (std::size_t k = 0; k < want.tasks; ++k) {
      for (std::size_t s = 0; s < program->ranks.size(); ++s) {
        const double w0 = want.start[s * want.tasks + k], w1 = want.end[s * want.tasks + k];
        CHECK(got->start_us[got->at(s, k)] == doctest::Approx(w0).epsilon(1e-9));
        CHECK(got->end_us[got->at(s, k)] == doctest::Approx(w1).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("step engine: refuses plans beyond max_rank_tasks") {
  PlanBuilder b({8}, {"dp"}, 8);
  b.op("a", 1, {});
  b.op("b", 1, {0});
  TimelineOptions o;
  o.max_rank_tasks = 15;
  auto tl = simulate_step(b.build(), o);
  REQUIRE(!tl.ok());
  CHECK(tl.error().kind == core::ErrorKind::kUnsupported);
  CHECK(tl.error().message.find("2 tasks x 8 ranks = 16") != std::string::npos);
  o.max_rank_tasks = 16;
  CHECK(simulate_step(b.build(), o).ok());
}

}  // namespace
}  // namespace dtplan::sim
