#pragma once
// RankTensors: the local tensors of the ranks one process group backend holds, by global rank.
// The fake process group holds every rank of the world; an SPMD backend (MPI, NCCL: one rank per
// process) holds just its own. A collective replaces the tensors of its member ranks by their
// outputs (moving storage in and out, never copying it).
//
//   RankTensors store(8);
//   store.set(3, Tensor::zeros(core::DType::kF32, {4}).value());
//   store.has(3) && !store.has(2); store.ranks() == {3}

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/tensor.h"

namespace dtplan::sim {

class RankTensors {
 public:
  // @pre world_size >= 0.
  explicit RankTensors(std::int64_t world_size) : slots_(static_cast<std::size_t>(world_size)) {}

  [[nodiscard]] std::int64_t world_size() const { return static_cast<std::int64_t>(slots_.size()); }
  [[nodiscard]] bool in_world(std::int64_t rank) const { return rank >= 0 && rank < world_size(); }
  [[nodiscard]] bool has(std::int64_t rank) const {
    return in_world(rank) && slots_[static_cast<std::size_t>(rank)].has_value();
  }
  // @pre has(rank).
  [[nodiscard]] Tensor& at(std::int64_t rank) { return *slots_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] const Tensor& at(std::int64_t rank) const {
    return *slots_[static_cast<std::size_t>(rank)];
  }
  // @pre in_world(rank).
  void set(std::int64_t rank, Tensor tensor) {
    slots_[static_cast<std::size_t>(rank)] = std::move(tensor);
  }
  // Moves the tensor out; the rank is absent afterwards. @pre has(rank).
  Tensor take(std::int64_t rank) {
    Tensor out = std::move(*slots_[static_cast<std::size_t>(rank)]);
    slots_[static_cast<std::size_t>(rank)].reset();
    return out;
  }
  // The ranks present, ascending.
  [[nodiscard]] std::vector<std::int64_t> ranks() const {
    std::vector<std::int64_t> out;
    for (std::size_t r = 0; r < slots_.size(); ++r) {
      if (slots_[r].has_value()) out.push_back(static_cast<std::int64_t>(r));
    }
    return out;
  }

  bool operator==(const RankTensors&) const = default;

 private:
  std::vector<std::optional<Tensor>> slots_;
};

}  // namespace dtplan::sim
