#include "sim/rank_symmetry.h"

#include <algorithm>
#include <utility>

#include "core/min_union_find.h"

namespace dtplan::sim {

namespace {

// Whether `shift` (slot -> slot) is a symmetry: a bijection that keeps every GPU's local index,
// maps nodes onto nodes one to one and every group of every partition onto a group.
bool is_symmetry(const StepProgram& program, const SlotLinks& at,
                 const std::vector<std::int32_t>& shift) {
  const std::size_t n = program.ranks.size();
  if (shift.size() != n) return false;
  const std::int64_t gpn = program.gpus_per_node;
  std::vector<char> hit(n, 0);
  const std::size_t nodes =
      at.node_of.empty() ? 0 : static_cast<std::size_t>(*std::ranges::max_element(at.node_of)) + 1;
  std::vector<std::int32_t> node_image(nodes, -1), node_source(nodes, -1);
  for (std::size_t s = 0; s < n; ++s) {
    const auto t = static_cast<std::size_t>(shift[s]);
    if (t >= n || hit[t]++ != 0) return false;
    if (program.ranks[t] % gpn != program.ranks[s] % gpn) return false;
    const std::int32_t from = at.node_of[s], to = at.node_of[t];
    auto& image = node_image[static_cast<std::size_t>(from)];
    auto& source = node_source[static_cast<std::size_t>(to)];
    if ((image >= 0 && image != to) || (source >= 0 && source != from)) return false;
    image = to;
    source = from;
  }
  for (const GroupPartition& part : program.partitions) {
    for (std::int32_t g = 0; g < part.groups(); ++g) {
      const auto m = part.group(g);
      const std::int32_t image = part.group_of[static_cast<std::size_t>(shift[m[0]])];
      for (std::int32_t s : m) {
        if (part.group_of[static_cast<std::size_t>(shift[static_cast<std::size_t>(s)])] != image)
          return false;
      }
    }
  }
  return true;
}

// What every partition's quotient reads: the symmetries, each slot's quotient slot and the link
// classes with their quotient ids.
struct Classes {
  std::vector<const std::vector<std::int32_t>*> symmetries;
  std::vector<std::int32_t> quotient_slot;  // by slot: -1 unless it is its class's lowest
  core::MinUnionFind link_class;
  std::vector<std::int32_t> link_id;  // by the lowest link of a class: its quotient link
};

// Partition p in the quotient, appended to q with its links; false (no quotient) when a link
// carries two groups of one class or the kept slots do not form whole groups of one size.
bool quotient_partition(const StepProgram& program, std::size_t p, const LinkMap& links, Classes& c,
                        SlotQuotient& q) {
  const GroupPartition& part = program.partitions[p];
  // Classes of groups: a group and its image under each symmetry.
  core::MinUnionFind group_class(static_cast<std::size_t>(part.groups()));
  for (const auto* shift : c.symmetries) {
    for (std::int32_t g = 0; g < part.groups(); ++g) {
      const auto first = static_cast<std::size_t>(part.group(g)[0]);
      group_class.unite(g, part.group_of[static_cast<std::size_t>((*shift)[first])]);
    }
  }
  // No link may carry two groups of one class.
  std::vector<std::pair<std::int32_t, std::int32_t>> uses;  // (link, group class)
  for (std::int32_t g = 0; g < part.groups(); ++g) {
    for (std::int32_t l : links.of(p, g)) uses.emplace_back(l, group_class.find(g));
  }
  std::ranges::sort(uses);
  if (std::ranges::adjacent_find(uses) != uses.end()) return false;

  GroupPartition out;
  out.mesh_dims = part.mesh_dims;
  out.flattened = part.flattened;
  out.size = 0;
  out.group_of.assign(q.program.ranks.size(), -1);
  std::vector<char> class_kept(static_cast<std::size_t>(part.groups()), 0);
  std::vector<std::int32_t> offsets{0};
  std::vector<std::int32_t> kept_links;
  std::int32_t kept_groups = 0;
  for (std::int32_t g = 0; g < part.groups(); ++g) {
    std::vector<std::int32_t> own, reps;
    for (std::int32_t s : part.group(g)) {
      const auto slot = static_cast<std::size_t>(s);
      if (c.quotient_slot[slot] >= 0) own.push_back(c.quotient_slot[slot]);
      reps.push_back(q.rep[slot]);
    }
    if (own.empty()) continue;
    std::ranges::sort(reps);
    reps.erase(std::unique(reps.begin(), reps.end()), reps.end());
    char& kept = class_kept[static_cast<std::size_t>(group_class.find(g))];
    if (reps != own || kept != 0 || (out.size != 0 && out.size != std::ssize(own))) {
      return false;
    }
    kept = 1;
    out.size = std::ssize(own);
    const std::int32_t group = kept_groups++;
    for (std::int32_t s : own) out.group_of[static_cast<std::size_t>(s)] = group;
    out.members.insert(out.members.end(), own.begin(), own.end());
    out.topologies.push_back(part.topologies[static_cast<std::size_t>(g)]);
    std::vector<std::int32_t> mine;
    for (std::int32_t l : links.of(p, g)) {
      mine.push_back(c.link_id[static_cast<std::size_t>(c.link_class.find(l))]);
    }
    std::ranges::sort(mine);
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    kept_links.insert(kept_links.end(), mine.begin(), mine.end());
    offsets.push_back(static_cast<std::int32_t>(kept_links.size()));
  }
  if (std::ranges::find(out.group_of, -1) != out.group_of.end()) return false;
  q.links.offsets.push_back(std::move(offsets));
  q.links.links_of.push_back(std::move(kept_links));
  q.program.partitions.push_back(std::move(out));
  return true;
}

// The smallest power shift^k (k = 2 .. gpus per node) that is a symmetry and not the identity;
// empty when none is. A dim whose stride is not a multiple of the GPUs per node moves whole
// nodes when shifted by k (stride 4 on 8-GPU nodes: k = 2).
std::vector<std::int32_t> symmetric_power(const StepProgram& program, const SlotLinks& at,
                                          const std::vector<std::int32_t>& shift) {
  std::vector<std::int32_t> power = shift;
  for (std::int64_t k = 2; k <= program.gpus_per_node; ++k) {
    bool identity = true;
    for (std::size_t s = 0; s < power.size(); ++s) {
      power[s] = shift[static_cast<std::size_t>(power[s])];
      identity = identity && power[s] == static_cast<std::int32_t>(s);
    }
    if (identity) break;
    if (is_symmetry(program, at, power)) return power;
  }
  return {};
}

// The quotient by `symmetries` (non-empty); nullopt where it would not be exact.
std::optional<SlotQuotient> quotient_by(const StepProgram& program, const SlotLinks& at,
                                        const LinkMap& links,
                                        std::vector<const std::vector<std::int32_t>*> symmetries) {
  const std::size_t n = program.ranks.size();
  Classes c{.symmetries = std::move(symmetries),
            .quotient_slot = std::vector<std::int32_t>(n, -1),
            .link_class = core::MinUnionFind(static_cast<std::size_t>(at.links)),
            .link_id = std::vector<std::int32_t>(static_cast<std::size_t>(at.links), -1)};

  // Classes of slots and of links under the symmetries, each named by its lowest member.
  core::MinUnionFind slot_class(n);
  for (const auto* shift : c.symmetries) {
    for (std::size_t s = 0; s < n; ++s) {
      const std::int32_t t = (*shift)[s];
      slot_class.unite(static_cast<std::int32_t>(s), t);
      c.link_class.unite(static_cast<std::int32_t>(s), t);
      c.link_class.unite(at.nic_of[s], at.nic_of[static_cast<std::size_t>(t)]);
    }
  }
  SlotQuotient q;
  q.symmetries = static_cast<std::int32_t>(c.symmetries.size());
  for (std::size_t s = 0; s < n; ++s) {
    if (slot_class.find(static_cast<std::int32_t>(s)) != static_cast<std::int32_t>(s)) continue;
    c.quotient_slot[s] = static_cast<std::int32_t>(q.program.ranks.size());
    q.program.ranks.push_back(program.ranks[s]);
  }
  if (q.program.ranks.size() == n) return std::nullopt;
  q.rep.resize(n);
  for (std::size_t s = 0; s < n; ++s) {
    q.rep[s] =
        c.quotient_slot[static_cast<std::size_t>(slot_class.find(static_cast<std::int32_t>(s)))];
  }
  // Link classes numbered in order of their lowest link.
  for (std::int32_t l = 0; l < at.links; ++l) {
    if (c.link_class.find(l) == l) c.link_id[static_cast<std::size_t>(l)] = q.links.links++;
  }
  for (std::size_t p = 0; p < program.partitions.size(); ++p) {
    if (!quotient_partition(program, p, links, c, q)) return std::nullopt;
  }
  q.program.gpus_per_node = program.gpus_per_node;
  q.program.streams = program.streams;
  q.program.tasks = program.tasks;
  q.program.op_task = program.op_task;
  return q;
}

}  // namespace

std::optional<SlotQuotient> quotient_slots(const StepProgram& program, const SlotLinks& at,
                                           const LinkMap& links) {
  if (program.ranks.empty()) return std::nullopt;
  std::vector<const std::vector<std::int32_t>*> shifts;  // the shifts by one that are symmetries
  std::vector<std::vector<std::int32_t>> powers;         // and the powers of the others that are
  powers.reserve(program.shifts.size());
  for (const auto& shift : program.shifts) {
    if (is_symmetry(program, at, shift)) {
      shifts.push_back(&shift);
    } else if (auto power = symmetric_power(program, at, shift); !power.empty()) {
      powers.push_back(std::move(power));
    }
  }
  if (!powers.empty()) {
    auto all = shifts;
    for (const auto& power : powers) all.push_back(&power);
    if (auto q = quotient_by(program, at, links, std::move(all))) return q;
  }
  if (shifts.empty()) return std::nullopt;
  return quotient_by(program, at, links, std::move(shifts));
}

EngineRun expand_run(const EngineRun& quotient, const std::vector<std::int32_t>& rep) {
  EngineRun run;
  run.tasks = quotient.tasks;
  run.slots = static_cast<std::int32_t>(rep.size());
  run.events = quotient.events;
  const std::size_t n = static_cast<std::size_t>(run.tasks) * rep.size();
  run.start_us.resize(n);
  run.end_us.resize(n);
  for (std::size_t t = 0; t < static_cast<std::size_t>(run.tasks); ++t) {
    for (std::size_t s = 0; s < rep.size(); ++s) {
      const std::size_t from = quotient.at(static_cast<std::size_t>(rep[s]), t);
      run.start_us[run.at(s, t)] = quotient.start_us[from];
      run.end_us[run.at(s, t)] = quotient.end_us[from];
    }
  }
  return run;
}

}  // namespace dtplan::sim
