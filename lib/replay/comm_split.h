#pragma once
// How the SPMD backends turn a call's group list into communicators: one split of the world
// communicator per distinct list of disjoint groups (MPI_Comm_split, ncclCommSplit), collective
// on every rank of the world, cached by the list so that the next call on the same groups reuses
// it. The list is first put in canonical order (groups sorted, each group's own order kept), so
// [[2,3],[0,1]] and [[0,1],[2,3]] share one split. A rank's color is the index of its group in
// the canonical list and its key is its position in the group, so communicator rank order is
// group-rank order; a rank in no group passes no color (MPI_UNDEFINED, NCCL_SPLIT_NOCOLOR).
//
//   canonical_groups({{2,3},{0,1}}) == {{0,1},{2,3}}
//   split_args({{0,1},{3,2}}, 2) == SplitArgs{.color = 1, .key = 1}
//   split_args({{0,1}}, 5).color == std::nullopt

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective_call.h"

namespace dtplan::replay {

using sim::Group;

// "[[0,1],[2,3]]".
std::string groups_string(const std::vector<Group>& groups);

// The groups sorted lexicographically; every group keeps its order.
std::vector<Group> canonical_groups(std::vector<Group> groups);

struct SplitArgs {
  std::optional<int> color;  // empty: the rank is in no group
  int key = 0;               // its position in its group
  bool operator==(const SplitArgs&) const = default;
};

// The split arguments of `rank` for canonical `groups` (the first group holding it).
// @pre groups are disjoint; fewer than 2^31 groups and group members.
SplitArgs split_args(const std::vector<Group>& groups, std::int64_t rank);

// The communicators made so far, by canonical group list. `Handle` is the backend's communicator
// (null for a rank in no group); the owner frees every handle (for_each) before it goes away.
template <class Handle>
class CommCache {
 public:
  // The handle made for `canonical`, or nullptr if none was made yet.
  [[nodiscard]] const Handle* find(const std::vector<Group>& canonical) const {
    auto it = entries_.find(canonical);
    return it == entries_.end() ? nullptr : &it->second;
  }
  // Records a new split's handle. @pre find(canonical) == nullptr.
  const Handle& insert(std::vector<Group> canonical, Handle handle) {
    return entries_.emplace(std::move(canonical), std::move(handle)).first->second;
  }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  // Visits every handle in canonical-list order, then forgets them all.
  template <class F>
  void release_all(F&& free_handle) {
    for (auto& [groups, handle] : entries_) free_handle(handle);
    entries_.clear();
  }

 private:
  std::map<std::vector<Group>, Handle> entries_;
};

}  // namespace dtplan::replay
