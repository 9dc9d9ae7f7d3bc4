#pragma once
// pinned_labels(): the strategies that become a node's labels under LabelScope::kPinned
// (selection_problem.h): those its pins allow and, at a repeat position, those some block's pins
// allow, so that the blocks of a repeat group stay alike (the solver solves them as one).
//
//   auto kept = pinned_labels(allowed, problem.repeats);
//   // nullopt: keep every label (some node allows none, or a repeat group's blocks are unalike;
//   // simplify and validate() report those); else per node its kept strategies, ascending,
//   // empty where it keeps all of them

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "solve/problem.h"

namespace dtplan::strategy {

// allowed[v][s] != 0: node v's pins allow its strategy s.
std::optional<std::vector<std::vector<std::int32_t>>> pinned_labels(
    const std::vector<std::vector<char>>& allowed, std::span<const solve::RepeatGroup> repeats);

}  // namespace dtplan::strategy
