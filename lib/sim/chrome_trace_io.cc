#include "sim/chrome_trace_io.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/output_file.h"

namespace dtplan::sim {

namespace {

using Json = nlohmann::ordered_json;

Json event_args(const Timeline& tl, const TimelineEvent& e, bool critical) {
  const Task& task = tl.program.tasks[static_cast<std::size_t>(e.task)];
  Json args = Json::object();
  args["task"] = e.task;
  args["op"] = task.op;
  if (task.kind != TaskKind::kCompute) {
    args["slot"] = task.slot;
    args["step"] = task.step;
  }
  if (task.collective) {
    args["collective"] = std::string(collective::name(*task.collective));
    args["bytes"] = task.bytes;
    if (task.partition >= 0) {
      args["group_size"] = tl.program.partitions[static_cast<std::size_t>(task.partition)].size;
    }
    args["latency_us"] = task.latency_us;
  } else if (task.kind == TaskKind::kLocal) {
    args["bytes"] = task.bytes;
  }
  args["alone_us"] = task.alone_us;
  if (task.kind != TaskKind::kCompute) args["prefetched"] = task.prefetched;
  args["critical"] = critical;
  return args;
}

}  // namespace

std::string chrome_trace_json(const Timeline& tl) {
  std::set<std::pair<std::int64_t, std::int32_t>> on_path;
  for (const PathEntry& p : tl.critical_path) on_path.emplace(p.rank, p.task);
  Json events = Json::array();
  for (std::int64_t rank : tl.event_ranks) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", rank},
                      {"tid", 0},
                      {"args", {{"name", "rank " + std::to_string(rank)}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", rank},
                      {"tid", 0},
                      {"args", {{"sort_index", rank}}}});
    for (std::size_t s = 0; s < tl.program.streams.size(); ++s) {
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", rank},
                        {"tid", s},
                        {"args", {{"name", tl.program.streams[s].name}}}});
    }
  }
  for (const TimelineEvent& e : tl.events) {
    const Task& task = tl.program.tasks[static_cast<std::size_t>(e.task)];
    Json ev = Json::object();
    ev["name"] = task.name;
    ev["cat"] = std::string(task_kind_name(task.kind));
    ev["ph"] = "X";
    ev["ts"] = e.start_us;
    ev["dur"] = e.end_us - e.start_us;
    ev["pid"] = e.rank;
    ev["tid"] = task.stream;
    ev["args"] = event_args(tl, e, on_path.count({e.rank, e.task}) > 0);
    events.push_back(std::move(ev));
  }
  Json doc = Json::object();
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ns";
  doc["otherData"] = {{"step_time_us", tl.step_time_us},
                      {"critical_rank", tl.critical_rank},
                      {"compute_us", tl.compute_us},
                      {"communication_us", tl.communication_us},
                      {"exposed_communication_us", tl.exposed_communication_us}};
  return doc.dump(1) + "\n";
}

core::Status write_chrome_trace(const Timeline& timeline, const std::filesystem::path& path) {
  return core::write_output_file(path.string(), chrome_trace_json(timeline), "trace file");
}

}  // namespace dtplan::sim
