#include "cost/nccl_tests_log.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "core/strings.h"
#include "core/text_file.h"

namespace dtplan::cost {

namespace {

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool to_int(std::string_view s, std::int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool to_double(std::string_view s, double& out) {
  std::string copy(s);
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && !copy.empty() && std::isfinite(out);
}

// Removes an mpirun output tag ("[1,0]<stdout>:", "[0] ") from the start of a line.
std::string_view untag(std::string_view line) {
  if (line.empty() || line.front() != '[') return line;
  std::size_t close = line.find(']');
  if (close == std::string_view::npos || close > 24) return line;
  std::string_view inside = line.substr(1, close - 1);
  if (inside.empty() || inside.find_first_not_of("0123456789,") != std::string_view::npos) {
    return line;
  }
  std::string_view rest = line.substr(close + 1);
  if (rest.starts_with("<stdout>:") || rest.starts_with("<stderr>:")) rest.remove_prefix(9);
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

core::Error at_line(std::string_view source, std::size_t line, const std::string& message) {
  return core::Error::bad_input(std::string(source) + ":" + std::to_string(line) + ": " + message);
}

// The collective whose nccl-tests binary name appears in `text`, if exactly one does.
bool collective_from_name(std::string_view text, collective::Collective& out) {
  int found = 0;
  for (const auto& f : collective::all_facts()) {
    if (!f.nccl_tests.empty() && text.find(f.nccl_tests) != std::string_view::npos) {
      // "reduce_perf" is a suffix of "all_reduce_perf" and "reduce_scatter_perf" is not; keep
      // the longest match.
      if (found == 0 || f.nccl_tests.size() > collective::facts(out).nccl_tests.size()) {
        out = f.collective;
      }
      ++found;
    }
  }
  return found > 0;
}

struct Builder {
  NcclTestsRun run;
  bool has_collective = false;
  std::size_t first_line = 0;
  std::map<std::int64_t, std::string> rank_host;
  int time_column = -1;
};

core::Status finish(Builder& b, std::string_view source, std::vector<NcclTestsRun>& out) {
  if (!b.has_collective) {
    if (!collective_from_name(source, b.run.collective)) {
      return at_line(source, b.first_line,
                     "no '# Collective test starting:' line names the collective, and the file "
                     "name holds no nccl-tests binary name (e.g. all_reduce_perf)");
    }
  }
  if (b.rank_host.empty()) {
    return at_line(source, b.first_line, "no '#  Rank N ... on HOST device ...' lines");
  }
  auto n = static_cast<std::int64_t>(b.rank_host.size());
  if (b.rank_host.begin()->first != 0 || b.rank_host.rbegin()->first != n - 1) {
    return at_line(source, b.first_line,
                   "the device lines do not list ranks 0.." + std::to_string(n - 1) + " exactly");
  }
  if (n < 2) return at_line(source, b.first_line, "a single rank measures no communication");
  if (b.run.rows.empty()) return at_line(source, b.first_line, "no data rows");
  std::map<std::string, std::int32_t> per_host;
  for (const auto& [rank, host] : b.rank_host) {
    if (per_host[host]++ == 0) b.run.hosts.push_back(host);
  }
  GroupTopology& t = b.run.layout;
  t.ranks = static_cast<std::int32_t>(n);
  t.nodes = static_cast<std::int32_t>(per_host.size());
  t.min_ranks_per_node = t.ranks;
  t.max_ranks_per_node = 0;
  for (const auto& [host, count] : per_host) {
    t.min_ranks_per_node = std::min(t.min_ranks_per_node, count);
    t.max_ranks_per_node = std::max(t.max_ranks_per_node, count);
  }
  b.run.source = std::string(source) + ":" + std::to_string(b.first_line);
  out.push_back(std::move(b.run));
  return {};
}

// A device line, "#  Rank  3 Group  0 Pid 123 on host device  3 [0x19] NVIDIA H100 80GB HBM3":
// the rank's host, and rank 0's device name.
core::Status read_rank_line(Builder& b, const std::vector<std::string_view>& tok,
                            std::string_view line, std::string_view source, std::size_t lineno) {
  std::int64_t rank = -1;
  auto on = std::find(tok.begin(), tok.end(), "on");
  if (tok.size() < 3 || !to_int(tok[2], rank) || rank < 0 || on == tok.end() ||
      on + 1 == tok.end()) {
    return at_line(source, lineno,
                   "cannot read the device line '" + std::string(core::trim(line)) + "'");
  }
  if (!b.rank_host.emplace(rank, std::string(*(on + 1))).second) {
    return at_line(source, lineno,
                   "rank " + std::to_string(rank) +
                       " is listed twice (nccl-tests built without MPI support?)");
  }
  if (rank == 0) {
    std::size_t close = line.find(']');
    if (close != std::string_view::npos) {
      b.run.device = std::string(core::trim(line.substr(close + 1)));
    }
  }
  return {};
}

// A comment line inside a run: a device line, or the column header
// "#  size  count  type  redop  root  time  algbw  busbw ..." (which sets the time column).
core::Status read_comment(Builder& b, const std::vector<std::string_view>& tok,
                          std::string_view line, std::string_view source, std::size_t lineno) {
  if (tok.size() >= 2 && tok[0] == "#" && tok[1] == "Rank") {
    return read_rank_line(b, tok, line, source, lineno);
  }
  if (tok.size() >= 3 && (tok[0] == "#" ? tok[1] == "size" : tok[0] == "#size")) {
    std::size_t offset = tok[0] == "#" ? 1 : 0;
    for (std::size_t c = offset; c < tok.size(); ++c) {
      if (tok[c] == "time") {
        b.time_column = static_cast<int>(c - offset);
        break;
      }
    }
    if (b.time_column < 0) return at_line(source, lineno, "column header has no 'time'");
  }
  return {};
}

// A line that is no comment: a data row when it starts with a size (its out-of-place time and
// bandwidths), else text to skip (NCCL INFO lines, warnings, "NCCL version ...").
core::Status read_row(Builder& b, const std::vector<std::string_view>& tok, std::string_view line,
                      std::string_view source, std::size_t lineno) {
  std::int64_t size = 0;
  if (!to_int(tok[0], size)) {
    // All digits but not an int64: a data row whose size cannot be read, not a text line.
    if (tok[0].find_first_not_of("0123456789") == std::string_view::npos) {
      return at_line(source, lineno,
                     "size '" + std::string(tok[0]) + "' does not fit in a 64-bit integer");
    }
    return {};
  }
  if (b.time_column < 0) {
    return at_line(source, lineno, "data row before the '#  size  count ...' column header");
  }
  auto tc = static_cast<std::size_t>(b.time_column);
  NcclTestsRow row;
  row.size_bytes = size;
  if (tok.size() < tc + 3 || !to_int(tok[1], row.count) || !to_double(tok[tc], row.time_us) ||
      !to_double(tok[tc + 1], row.algbw_gbyte_per_s) ||
      !to_double(tok[tc + 2], row.busbw_gbyte_per_s) || row.time_us < 0 || size < 0) {
    return at_line(
        source, lineno,
        "cannot read the out-of-place time of the row '" + std::string(core::trim(line)) + "'");
  }
  if (size > 0) b.run.rows.push_back(row);
  return {};
}

}  // namespace

core::Result<std::vector<NcclTestsRun>> parse_nccl_tests_log(std::string_view text,
                                                             std::string_view source) {
  std::vector<NcclTestsRun> out;
  std::optional<Builder> cur;
  std::vector<std::string_view> lines = core::split(text, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::size_t lineno = i + 1;
    std::string_view line = untag(lines[i]);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> tok = tokens(line);
    if (tok.empty()) continue;
    bool comment = tok[0].front() == '#';
    if (comment && line.find("Collective test starting:") != std::string_view::npos) {
      if (cur) DTPLAN_CHECK(finish(*cur, source, out));
      cur.emplace();
      cur->first_line = lineno;
      std::string_view name = tok.back();
      auto c =
          collective::parse_collective(name, std::string(source) + ":" + std::to_string(lineno));
      if (!c.ok()) return c.error();
      cur->run.collective = c.value();
      cur->has_collective = true;
      continue;
    }
    if (comment && tok.size() >= 2 && tok[0] == "#" && tok[1] == "nThread") {
      if (cur && !cur->run.rows.empty()) {
        DTPLAN_CHECK(finish(*cur, source, out));
        cur.reset();
      }
      if (!cur) {
        cur.emplace();
        cur->first_line = lineno;
      }
      continue;
    }
    if (comment && line.find("Collective test concluded") != std::string_view::npos) {
      if (cur) DTPLAN_CHECK(finish(*cur, source, out));
      cur.reset();
      continue;
    }
    if (!cur) continue;
    if (comment) {
      DTPLAN_CHECK(read_comment(*cur, tok, line, source, lineno));
    } else {
      DTPLAN_CHECK(read_row(*cur, tok, line, source, lineno));
    }
  }
  if (cur) DTPLAN_CHECK(finish(*cur, source, out));
  if (out.empty()) {
    return core::Error::bad_input(std::string(source) +
                                  ": no nccl-tests run found (expected "
                                  "'# nThread ...' and data rows)");
  }
  return out;
}

core::Result<std::vector<NcclTestsRun>> load_nccl_tests_log(const std::string& path) {
  DTPLAN_TRY(std::string text, core::read_text_file(path, "nccl-tests log"));
  return parse_nccl_tests_log(text, path);
}

}  // namespace dtplan::cost
