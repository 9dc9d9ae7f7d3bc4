#include "sim/step_engine.h"

#include <algorithm>
#include <queue>

#include "core/checked.h"

namespace dtplan::sim {

std::vector<std::int32_t> stream_predecessors(const StepProgram& program) {
  std::vector<std::int32_t> last(program.streams.size(), -1);
  std::vector<std::int32_t> prev(program.tasks.size(), -1);
  for (std::size_t t = 0; t < program.tasks.size(); ++t) {
    auto& l = last[static_cast<std::size_t>(program.tasks[t].stream)];
    prev[t] = l;
    l = static_cast<std::int32_t>(t);
  }
  return prev;
}

namespace {

constexpr std::int32_t kComputeStream = 0;  // StepProgram::streams: compute first

enum class EventKind : std::uint8_t {
  kTaskEnd,
  kLatencyDone,
  kFlowDone,
  kInstanceDone,
  kComputeEnd,  // one compute-stream task on one slot, under SM sharing
};

struct Event {
  double time = 0;
  std::uint64_t seq = 0;
  EventKind kind = EventKind::kTaskEnd;
  std::int32_t a = 0;  // kTaskEnd, kLatencyDone, kInstanceDone, kComputeEnd: task; kFlowDone: flow
  std::int32_t b = 0;  // kTaskEnd: batch; kLatencyDone / kInstanceDone: group; kComputeEnd: slot
  std::uint32_t version = 0;
};

struct Later {
  bool operator()(const Event& x, const Event& y) const {
    return x.time != y.time ? x.time > y.time : x.seq > y.seq;
  }
};

struct Flow {
  std::int32_t task = 0;
  std::int32_t group = 0;
  double remaining_us = 0;  // bandwidth time left at full rate, as of last_us
  double last_us = 0;
  std::int64_t share = 0;  // current divisor (flows on its busiest link); 0 before rating
  std::uint32_t version = 0;
};

class Engine {
 public:
  Engine(const StepProgram& p, const LinkMap& l, bool contention, double overlap_compute_factor)
      : prog_(p),
        links_(l),
        contention_(contention),
        rho_(overlap_compute_factor),
        sharing_(overlap_compute_factor < 1.0) {}

  core::Result<EngineRun> run() {
    setup();
    for (std::int32_t s = 0; s < slots_; ++s) {
      for (std::int32_t t = 0; t < tasks_; ++t) {
        if (base_pending_[static_cast<std::size_t>(t)] == 0) start_task(s, t, 0.0);
      }
    }
    flush_starts();
    while (!heap_.empty()) {
      const Event e = heap_.top();
      heap_.pop();
      ++run_.events;
      switch (e.kind) {
        case EventKind::kTaskEnd:
          end_batch(e.a, e.b, e.time);
          break;
        case EventKind::kLatencyDone:
          begin_bandwidth(e.a, e.b, e.time);
          break;
        case EventKind::kFlowDone:
          if (flows_[static_cast<std::size_t>(e.a)].version == e.version) flow_done(e.a, e.time);
          break;
        case EventKind::kInstanceDone:
          finish_instance(e.a, e.b, e.time);
          break;
        case EventKind::kComputeEnd:
          if (cver_[static_cast<std::size_t>(e.b)] == e.version) end_shared(e.b, e.a, e.time);
          break;
      }
      if (!staged_.empty() && (heap_.empty() || heap_.top().time > e.time)) flush_starts();
    }
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (pending_[i] != 0) {
        return core::Error::internal("step simulation: task '" +
                                     prog_.tasks[i / static_cast<std::size_t>(slots_)].name +
                                     "' never ran");
      }
    }
    return std::move(run_);
  }

 private:
  std::size_t at(std::int32_t slot, std::int32_t task) const {
    return run_.at(static_cast<std::size_t>(slot), static_cast<std::size_t>(task));
  }

  void setup() {
    tasks_ = static_cast<std::int32_t>(prog_.tasks.size());
    slots_ = static_cast<std::int32_t>(prog_.ranks.size());
    run_.tasks = tasks_;
    run_.slots = slots_;
    const std::size_t n = static_cast<std::size_t>(tasks_) * static_cast<std::size_t>(slots_);
    run_.start_us.assign(n, -1.0);
    run_.end_us.assign(n, -1.0);
    const std::vector<std::int32_t> prev = stream_predecessors(prog_);
    next_.assign(static_cast<std::size_t>(tasks_), -1);
    base_pending_.assign(static_cast<std::size_t>(tasks_), 0);
    succ_begin_.assign(static_cast<std::size_t>(tasks_) + 1, 0);
    for (std::int32_t t = 0; t < tasks_; ++t) {
      const Task& task = prog_.tasks[static_cast<std::size_t>(t)];
      const std::int32_t p = prev[static_cast<std::size_t>(t)];
      if (p >= 0) next_[static_cast<std::size_t>(p)] = t;
      base_pending_[static_cast<std::size_t>(t)] =
          static_cast<std::int32_t>(task.deps.size()) + (p >= 0 ? 1 : 0);
      for (std::int32_t d : task.deps) ++succ_begin_[static_cast<std::size_t>(d) + 1];
    }
    for (std::size_t t = 0; t < static_cast<std::size_t>(tasks_); ++t) {
      succ_begin_[t + 1] += succ_begin_[t];
    }
    succ_.assign(static_cast<std::size_t>(succ_begin_.back()), 0);
    std::vector<std::int32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
    for (std::int32_t t = 0; t < tasks_; ++t) {
      for (std::int32_t d : prog_.tasks[static_cast<std::size_t>(t)].deps) {
        succ_[static_cast<std::size_t>(fill[static_cast<std::size_t>(d)]++)] = t;
      }
    }
    pending_.resize(n);
    for (std::int32_t t = 0; t < tasks_; ++t) {
      std::fill_n(pending_.begin() + static_cast<std::ptrdiff_t>(at(0, t)), slots_,
                  base_pending_[static_cast<std::size_t>(t)]);
    }
    instance_base_.assign(static_cast<std::size_t>(tasks_), -1);
    std::int32_t instances = 0;
    for (std::int32_t t = 0; t < tasks_; ++t) {
      const Task& task = prog_.tasks[static_cast<std::size_t>(t)];
      if (task.kind != TaskKind::kCollective) continue;
      const GroupPartition& part = prog_.partitions[static_cast<std::size_t>(task.partition)];
      instance_base_[static_cast<std::size_t>(t)] = instances;
      instances += part.groups();
      instance_pending_.insert(instance_pending_.end(), static_cast<std::size_t>(part.groups()),
                               static_cast<std::int32_t>(part.size));
    }
    link_flows_.assign(static_cast<std::size_t>(links_.links), {});
    batch_of_.assign(static_cast<std::size_t>(tasks_), -1);
    const auto slots = static_cast<std::size_t>(slots_);
    active_comm_.assign(slots, 0);
    running_.assign(slots, -1);
    remaining_.assign(slots, 0.0);
    since_.assign(slots, 0.0);
    cver_.assign(slots, 0);
  }

  // ---- SM sharing: a compute-stream task runs at rho_ while a collective of its slot runs ----

  double rate(std::int32_t slot) const {
    return active_comm_[static_cast<std::size_t>(slot)] > 0 ? rho_ : 1.0;
  }

  void schedule_shared(std::int32_t slot, double now) {
    const auto s = static_cast<std::size_t>(slot);
    push(now + remaining_[s] / rate(slot), EventKind::kComputeEnd, running_[s], slot, ++cver_[s]);
  }

  void start_shared(std::int32_t slot, std::int32_t t, double now) {
    const auto s = static_cast<std::size_t>(slot);
    run_.start_us[at(slot, t)] = now;
    running_[s] = t;
    remaining_[s] = prog_.tasks[static_cast<std::size_t>(t)].alone_us;
    since_[s] = now;
    schedule_shared(slot, now);
  }

  void end_shared(std::int32_t slot, std::int32_t t, double now) {
    running_[static_cast<std::size_t>(slot)] = -1;
    run_.end_us[at(slot, t)] = now;
    complete(slot, t, now);
  }

  // A collective starts (+1) or ends (-1) on `slot`: its running compute task is re-rated.
  void comm_change(std::int32_t slot, std::int32_t delta, double now) {
    const auto s = static_cast<std::size_t>(slot);
    const double before = rate(slot);
    if (running_[s] >= 0) {
      remaining_[s] = std::max(0.0, remaining_[s] - (now - since_[s]) * before);
      since_[s] = now;
    }
    active_comm_[s] += delta;
    if (running_[s] >= 0 && rate(slot) != before) schedule_shared(slot, now);
  }

  void push(double time, EventKind kind, std::int32_t a, std::int32_t b,
            std::uint32_t version = 0) {
    heap_.push(Event{time, seq_++, kind, a, b, version});
  }

  // A compute or local task starting now is staged; once every event of this instant is
  // processed, the slots that started the same task end it in one event (ranks mostly run in
  // lockstep, so one event stands for hundreds of slots).
  void start_task(std::int32_t slot, std::int32_t t, double now) {
    const Task& task = prog_.tasks[static_cast<std::size_t>(t)];
    if (sharing_ && task.kind != TaskKind::kCollective && task.stream == kComputeStream) {
      start_shared(slot, t, now);
      return;
    }
    if (task.kind != TaskKind::kCollective) {
      run_.start_us[at(slot, t)] = now;
      staged_.push_back({t, slot});
      staged_time_ = now;
      return;
    }
    const GroupPartition& part = prog_.partitions[static_cast<std::size_t>(task.partition)];
    const std::int32_t g = part.group_of[static_cast<std::size_t>(slot)];
    std::int32_t& left = instance_pending_[static_cast<std::size_t>(
        instance_base_[static_cast<std::size_t>(t)] + g)];
    if (--left > 0) return;
    for (std::int32_t m : part.group(g)) {
      run_.start_us[at(m, t)] = now;
      if (sharing_) comm_change(m, +1, now);
    }
    if (task.latency_us > 0) {
      push(now + task.latency_us, EventKind::kLatencyDone, t, g);
    } else {
      begin_bandwidth(t, g, now);
    }
  }

  // One kTaskEnd event per staged task, in the order the tasks were first staged.
  void flush_starts() {
    std::vector<std::int32_t> order;
    for (const auto& [t, slot] : staged_) {
      std::int32_t& b = batch_of_[static_cast<std::size_t>(t)];
      if (b < 0) {
        if (free_batches_.empty()) {
          b = static_cast<std::int32_t>(batches_.size());
          batches_.emplace_back();
        } else {
          b = free_batches_.back();
          free_batches_.pop_back();
        }
        order.push_back(t);
      }
      batches_[static_cast<std::size_t>(b)].push_back(slot);
    }
    staged_.clear();
    for (std::int32_t t : order) {
      std::int32_t& b = batch_of_[static_cast<std::size_t>(t)];
      push(staged_time_ + prog_.tasks[static_cast<std::size_t>(t)].alone_us, EventKind::kTaskEnd, t,
           b);
      b = -1;
    }
  }

  void end_batch(std::int32_t t, std::int32_t b, double now) {
    std::vector<std::int32_t> slots = std::move(batches_[static_cast<std::size_t>(b)]);
    for (std::int32_t slot : slots) {
      run_.end_us[at(slot, t)] = now;
      complete(slot, t, now);
    }
    slots.clear();
    batches_[static_cast<std::size_t>(b)] = std::move(slots);
    free_batches_.push_back(b);
  }

  std::span<const std::int32_t> links_of(const Task& task, std::int32_t g) const {
    return links_.of(static_cast<std::size_t>(task.partition), g);
  }

  void begin_bandwidth(std::int32_t t, std::int32_t g, double now) {
    const Task& task = prog_.tasks[static_cast<std::size_t>(t)];
    const double work = std::max(0.0, task.alone_us - task.latency_us);
    const auto links = links_of(task, g);
    if (!contention_ || links.empty() || work == 0) {
      push(now + work, EventKind::kInstanceDone, t, g);
      return;
    }
    std::int32_t f;
    if (!free_.empty()) {
      f = free_.back();
      free_.pop_back();
    } else {
      f = static_cast<std::int32_t>(flows_.size());
      flows_.emplace_back();
    }
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    flow.task = t;
    flow.group = g;
    flow.remaining_us = work;
    flow.last_us = now;
    flow.share = 0;
    for (std::int32_t l : links) link_flows_[static_cast<std::size_t>(l)].push_back(f);
    rerate_links(links, now, true);
  }

  // Re-rating after `links` each gained (`gained`) or lost one flow: only flows on them can
  // change rate, each is visited once however many of them it shares (a group over many nodes
  // has thousands of links), and in order of first appearance. A flow's share is the largest
  // flow count over its links: a gain raises it to at most the largest count among the gained
  // links it uses; a loss can lower it only where a lost link was at that maximum, and only
  // such flows re-count their links.
  void rerate_links(std::span<const std::int32_t> links, double now, bool gained) {
    ++stamp_;
    if (seen_.size() < flows_.size()) {
      seen_.resize(flows_.size(), 0);
      count_.resize(flows_.size(), 0);
    }
    touched_.clear();
    for (std::int32_t l : links) {
      const auto& list = link_flows_[static_cast<std::size_t>(l)];
      const auto c = static_cast<std::int64_t>(list.size());
      for (std::int32_t h : list) {
        const auto i = static_cast<std::size_t>(h);
        // gained: the largest count seen; lost: 1 when a lost link was at the share
        const std::int64_t v = gained ? c : (c + 1 == flows_[i].share ? 1 : 0);
        if (seen_[i] != stamp_) {
          seen_[i] = stamp_;
          count_[i] = v;
          touched_.push_back(h);
        } else {
          count_[i] = std::max(count_[i], v);
        }
      }
    }
    for (std::int32_t h : touched_) {
      const auto i = static_cast<std::size_t>(h);
      if (gained) {
        set_share(h, std::max(flows_[i].share, count_[i]), now);
      } else if (count_[i] != 0) {
        set_share(h, share_of(h), now);
      }
    }
  }

  std::int64_t share_of(std::int32_t h) const {
    const Flow& flow = flows_[static_cast<std::size_t>(h)];
    std::size_t share = 1;
    for (std::int32_t l : links_of(prog_.tasks[static_cast<std::size_t>(flow.task)], flow.group)) {
      share = std::max(share, link_flows_[static_cast<std::size_t>(l)].size());
    }
    return static_cast<std::int64_t>(share);
  }

  void set_share(std::int32_t h, std::int64_t k, double now) {
    Flow& flow = flows_[static_cast<std::size_t>(h)];
    if (k == flow.share) return;
    if (flow.share > 0) {
      flow.remaining_us =
          std::max(0.0, flow.remaining_us - (now - flow.last_us) / static_cast<double>(flow.share));
    }
    flow.last_us = now;
    flow.share = k;
    ++flow.version;
    push(now + flow.remaining_us * static_cast<double>(k), EventKind::kFlowDone, h, 0,
         flow.version);
  }

  void flow_done(std::int32_t f, double now) {
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    ++flow.version;  // later events of this flow are stale
    const std::int32_t t = flow.task, g = flow.group;
    const auto links = links_of(prog_.tasks[static_cast<std::size_t>(t)], g);
    for (std::int32_t l : links) {
      auto& list = link_flows_[static_cast<std::size_t>(l)];
      list.erase(std::find(list.begin(), list.end(), f));
    }
    free_.push_back(f);
    rerate_links(links, now, false);
    finish_instance(t, g, now);
  }

  void finish_instance(std::int32_t t, std::int32_t g, double now) {
    const GroupPartition& part = prog_.partitions[static_cast<std::size_t>(
        prog_.tasks[static_cast<std::size_t>(t)].partition)];
    for (std::int32_t m : part.group(g)) {
      run_.end_us[at(m, t)] = now;
      if (sharing_) comm_change(m, -1, now);
    }
    for (std::int32_t m : part.group(g)) complete(m, t, now);
  }

  void complete(std::int32_t slot, std::int32_t t, double now) {
    const auto b = static_cast<std::size_t>(succ_begin_[static_cast<std::size_t>(t)]);
    const auto e = static_cast<std::size_t>(succ_begin_[static_cast<std::size_t>(t) + 1]);
    for (std::size_t k = b; k < e; ++k) notify(slot, succ_[k], now);
    if (next_[static_cast<std::size_t>(t)] >= 0)
      notify(slot, next_[static_cast<std::size_t>(t)], now);
  }

  void notify(std::int32_t slot, std::int32_t t, double now) {
    if (--pending_[at(slot, t)] == 0) start_task(slot, t, now);
  }

  const StepProgram& prog_;
  const LinkMap& links_;
  bool contention_;
  double rho_;    // compute speed while a collective runs on the slot
  bool sharing_;  // rho_ < 1: compute-stream tasks are timed per slot and re-rated
  std::vector<std::int32_t> active_comm_;  // per slot: collectives running now
  std::vector<std::int32_t> running_;      // per slot: its compute-stream task, or -1
  std::vector<double> remaining_;          // per slot: alone time left as of since_
  std::vector<double> since_;
  std::vector<std::uint32_t> cver_;  // per slot: the live kComputeEnd event's version
  std::int32_t tasks_ = 0;
  std::int32_t slots_ = 0;
  EngineRun run_;
  std::vector<std::int32_t> next_;
  std::vector<std::int32_t> base_pending_;
  std::vector<std::int32_t> succ_begin_;
  std::vector<std::int32_t> succ_;
  std::vector<std::int32_t> pending_;
  std::vector<std::int32_t> instance_base_;
  std::vector<std::int32_t> instance_pending_;
  std::vector<Flow> flows_;
  std::vector<std::int32_t> free_;
  std::vector<std::uint64_t> seen_;  // per flow: the rerate_links call that last visited it
  std::vector<std::int64_t> count_;  // per flow visited: what rerate_links gathered
  std::vector<std::int32_t> touched_;
  std::uint64_t stamp_ = 0;
  std::vector<std::vector<std::int32_t>> link_flows_;
  std::vector<std::pair<std::int32_t, std::int32_t>> staged_;  // (task, slot) started now
  double staged_time_ = 0;
  std::vector<std::int32_t> batch_of_;              // per task: its batch while staging, else -1
  std::vector<std::vector<std::int32_t>> batches_;  // slots ending one task together
  std::vector<std::int32_t> free_batches_;
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace

core::Status check_rank_tasks(const StepProgram& program, std::int64_t max_rank_tasks) {
  DTPLAN_TRY(std::int64_t pairs,
             core::checked_mul(static_cast<std::int64_t>(program.ranks.size()),
                               static_cast<std::int64_t>(program.tasks.size()), "rank tasks"));
  if (pairs > max_rank_tasks) {
    return core::Error::unsupported(
        "step simulation: " + std::to_string(program.tasks.size()) + " tasks x " +
        std::to_string(program.ranks.size()) + " ranks = " + std::to_string(pairs) +
        " rank tasks exceeds the limit of " + std::to_string(max_rank_tasks));
  }
  return {};
}

core::Result<EngineRun> run_step_engine(const StepProgram& program, const LinkMap& links,
                                        bool contention, std::int64_t max_rank_tasks,
                                        double overlap_compute_factor) {
  DTPLAN_CHECK(check_rank_tasks(program, max_rank_tasks));
  return Engine(program, links, contention, overlap_compute_factor).run();
}

}  // namespace dtplan::sim
