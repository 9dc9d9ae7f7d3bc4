#include "sim/timeline.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "sim/link_sharing.h"
#include "sim/rank_symmetry.h"
#include "sim/step_engine.h"

namespace dtplan::sim {

std::string_view binding_name(Binding binding) {
  switch (binding) {
    case Binding::kStart:
      return "start";
    case Binding::kData:
      return "data";
    case Binding::kStream:
      return "stream";
    case Binding::kGate:
      return "gate";
  }
  return "start";
}

namespace {

using Interval = std::pair<double, double>;

// Total length of the overlap of two sorted lists of disjoint intervals.
double overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

// The summary of one slot from its busy intervals: compute (stream 0, in issue order = time
// order) and communication (merged here).
void finish_summary(RankSummary& sum, const std::vector<Interval>& compute,
                    std::vector<Interval>& comm) {
  std::sort(comm.begin(), comm.end());
  std::vector<Interval> merged;
  for (const Interval& iv : comm) {
    if (!merged.empty() && iv.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, iv.second);
    } else {
      merged.push_back(iv);
    }
  }
  sum.compute_busy_us = sum.stream_busy_us[0];
  for (const Interval& iv : merged) sum.communication_busy_us += iv.second - iv.first;
  sum.exposed_communication_us = sum.communication_busy_us - overlap(compute, merged);
  sum.idle_us = std::max(0.0, sum.end_us - sum.compute_busy_us - sum.exposed_communication_us);
}

// The summaries of `slots` (ascending). The run is task-major, so slots are read in blocks that
// share cache lines.
std::vector<RankSummary> summarize(const StepProgram& prog, const EngineRun& run,
                                   const std::vector<std::size_t>& slots) {
  constexpr std::size_t kBlock = 64;
  std::vector<RankSummary> out(slots.size());
  std::vector<std::vector<Interval>> compute(kBlock), comm(kBlock);
  for (std::size_t s0 = 0; s0 < slots.size(); s0 += kBlock) {
    const std::size_t n = std::min(kBlock, slots.size() - s0);
    for (std::size_t i = 0; i < n; ++i) {
      out[s0 + i].rank = prog.ranks[slots[s0 + i]];
      out[s0 + i].stream_busy_us.assign(prog.streams.size(), 0.0);
      compute[i].clear();
      comm[i].clear();
    }
    for (std::size_t t = 0; t < prog.tasks.size(); ++t) {
      const auto stream = static_cast<std::size_t>(prog.tasks[t].stream);
      for (std::size_t i = 0; i < n; ++i) {
        RankSummary& sum = out[s0 + i];
        const std::size_t at = run.at(slots[s0 + i], t);
        const double s = run.start_us[at], e = run.end_us[at];
        sum.end_us = std::max(sum.end_us, e);
        sum.stream_busy_us[stream] += e - s;
        if (e <= s) continue;
        (stream == 0 ? compute[i] : comm[i]).emplace_back(s, e);
      }
    }
    for (std::size_t i = 0; i < n; ++i) finish_summary(out[s0 + i], compute[i], comm[i]);
  }
  return out;
}

// The slot whose last task ends last (the lowest on ties), from the ends alone.
std::size_t last_slot(const EngineRun& run) {
  const auto slots = static_cast<std::size_t>(run.slots);
  std::vector<double> end(slots, 0.0);
  for (std::size_t t = 0; t < static_cast<std::size_t>(run.tasks); ++t) {
    const double* row = run.end_us.data() + run.at(0, t);
    for (std::size_t s = 0; s < slots; ++s) end[s] = std::max(end[s], row[s]);
  }
  std::size_t critical = 0;
  for (std::size_t s = 0; s < slots; ++s) {
    if (end[s] > end[critical]) critical = s;
  }
  return critical;
}

// Walks back from the critical rank's last task through the binding predecessor of each task:
// the first of (deps in slot order, with the gate last; the stream predecessor) that ended
// exactly when the task became ready; for a collective, first the member (lowest slot) whose
// readiness started the instance.
std::vector<PathEntry> critical_path(const StepProgram& prog, const EngineRun& run,
                                     std::size_t slot) {
  const std::vector<std::int32_t> prev = stream_predecessors(prog);
  const auto T = static_cast<std::size_t>(run.tasks);
  auto end_of = [&](std::size_t s, std::int32_t t) {
    return run.end_us[run.at(s, static_cast<std::size_t>(t))];
  };
  auto ready_of = [&](std::size_t s, std::int32_t t) {
    double r = 0;
    const Task& task = prog.tasks[static_cast<std::size_t>(t)];
    for (std::int32_t d : task.deps) r = std::max(r, end_of(s, d));
    if (prev[static_cast<std::size_t>(t)] >= 0)
      r = std::max(r, end_of(s, prev[static_cast<std::size_t>(t)]));
    return r;
  };
  // The last task to end on the slot (the latest in issue order on ties).
  std::int32_t t = -1;
  double last = -1;
  for (std::size_t k = 0; k < T; ++k) {
    if (end_of(slot, static_cast<std::int32_t>(k)) >= last) {
      last = end_of(slot, static_cast<std::int32_t>(k));
      t = static_cast<std::int32_t>(k);
    }
  }
  std::vector<PathEntry> path;
  while (t >= 0) {
    const Task& task = prog.tasks[static_cast<std::size_t>(t)];
    const double start = run.start_us[run.at(slot, static_cast<std::size_t>(t))];
    if (task.kind == TaskKind::kCollective) {
      const GroupPartition& part = prog.partitions[static_cast<std::size_t>(task.partition)];
      const std::int32_t g = part.group_of[slot];
      const auto size = static_cast<std::size_t>(part.size);
      for (std::size_t k = 0; k < size; ++k) {
        const auto m =
            static_cast<std::size_t>(part.members[static_cast<std::size_t>(g) * size + k]);
        if (ready_of(m, t) == start) {
          slot = m;
          break;
        }
      }
    }
    PathEntry entry{t, prog.ranks[slot], start, end_of(slot, t), Binding::kStart};
    std::int32_t next = -1;
    for (std::int32_t d : task.deps) {
      if (end_of(slot, d) == start) {
        next = d;
        entry.binding = d == task.gate ? Binding::kGate : Binding::kData;
        break;
      }
    }
    const std::int32_t p = prev[static_cast<std::size_t>(t)];
    if (next < 0 && p >= 0 && end_of(slot, p) == start) {
      next = p;
      entry.binding = Binding::kStream;
    }
    path.push_back(entry);
    t = next;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

using SummaryKey = std::tuple<double, double, double, double, double, std::vector<double>>;

SummaryKey key_of(const RankSummary& s) {
  return {s.end_us,  s.compute_busy_us, s.communication_busy_us, s.exposed_communication_us,
          s.idle_us, s.stream_busy_us};
}

// The step's figures: the critical rank's.
void take_figures(Timeline& tl, const RankSummary& crit) {
  tl.step_time_us = crit.end_us;
  tl.critical_rank = crit.rank;
  tl.compute_us = crit.compute_busy_us;
  tl.communication_us = crit.communication_busy_us;
  tl.exposed_communication_us = crit.exposed_communication_us;
}

}  // namespace

core::Result<Timeline> simulate_step(const plan::Plan& plan, const TimelineOptions& options) {
  Timeline tl;
  DTPLAN_TRY(tl.program, build_step_program(plan, options));
  const SlotLinks at = slot_links(tl.program, options.hardware);
  const LinkMap links = make_link_map(tl.program, at);
  std::optional<SlotQuotient> quotient;
  if (options.symmetry) quotient = quotient_slots(tl.program, at, links);
  const StepProgram& simulated = quotient ? quotient->program : tl.program;
  const std::size_t slots = tl.program.ranks.size();
  if (!options.step_only) {  // every slot's times are kept
    DTPLAN_CHECK(check_rank_tasks(tl.program, options.max_rank_tasks));
  }
  const double overlap =
      options.hardware ? options.hardware->compute.nccl_overlap_compute_factor : 1.0;
  DTPLAN_TRY(EngineRun run, run_step_engine(simulated, quotient ? quotient->links : links,
                                            options.contention, options.max_rank_tasks, overlap));
  tl.simulated_tasks = static_cast<std::int64_t>(simulated.ranks.size()) * run.tasks;
  // The critical slot from the task ends (a representative is the lowest slot of its class, so
  // the quotient's is the full run's); then its summary alone (step_only) or every slot's.
  if (options.step_only) {
    tl.ranks = summarize(simulated, run, {last_slot(run)});
    take_figures(tl, tl.ranks[0]);
    return tl;
  }
  if (quotient) run = expand_run(run, quotient->rep);
  const std::size_t critical = last_slot(run);
  std::vector<std::size_t> wanted(slots);
  std::iota(wanted.begin(), wanted.end(), std::size_t{0});
  tl.ranks = summarize(tl.program, run, wanted);
  take_figures(tl, tl.ranks[critical]);
  if (run.tasks > 0) tl.critical_path = critical_path(tl.program, run, critical);

  // Ranks whose events are kept: all, or the lowest rank of each of the first trace_ranks
  // classes of equal summaries (classes ordered by their lowest rank) and the critical rank.
  std::vector<std::size_t> keep;
  if (options.all_ranks) {
    for (std::size_t s = 0; s < slots; ++s) keep.push_back(s);
  } else {
    std::map<SummaryKey, std::size_t> classes;
    for (std::size_t s = 0; s < slots; ++s) {
      if (static_cast<std::int64_t>(classes.size()) >= options.trace_ranks) break;
      if (classes.emplace(key_of(tl.ranks[s]), s).second) keep.push_back(s);
    }
    keep.push_back(critical);
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  }
  const auto T = static_cast<std::size_t>(run.tasks);
  for (std::size_t s : keep) {
    tl.event_ranks.push_back(tl.program.ranks[s]);
    const std::size_t first = tl.events.size();
    for (std::size_t t = 0; t < T; ++t) {
      tl.events.push_back({tl.program.ranks[s], static_cast<std::int32_t>(t),
                           run.start_us[run.at(s, t)], run.end_us[run.at(s, t)]});
    }
    std::sort(tl.events.begin() + static_cast<std::ptrdiff_t>(first), tl.events.end(),
              [&](const TimelineEvent& a, const TimelineEvent& b) {
                const auto sa = tl.program.tasks[static_cast<std::size_t>(a.task)].stream;
                const auto sb = tl.program.tasks[static_cast<std::size_t>(b.task)].stream;
                return std::tuple(sa, a.start_us, a.task) < std::tuple(sb, b.start_us, b.task);
              });
  }
  return tl;
}

}  // namespace dtplan::sim
