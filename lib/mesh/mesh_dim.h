#pragma once
// MeshDim: a strong index of a mesh dimension, so that a mesh dim is never confused with a tensor
// dim or a rank. `MeshDim{1}` is the second dim; mesh_dim(i) converts a checked int.

#include <cstdint>

#include "core/limits.h"

namespace dtplan::mesh {

enum class MeshDim : std::int8_t {};

// The most mesh dims a DeviceMesh accepts (far beyond any real mesh; MeshDim must hold them).
inline constexpr int kMaxMeshDims = core::kMaxMeshDims;
static_assert(kMaxMeshDims <= 127, "MeshDim is an int8_t");

// @pre 0 <= i < kMaxMeshDims.
constexpr MeshDim mesh_dim(int i) { return static_cast<MeshDim>(i); }

constexpr int index(MeshDim d) { return static_cast<int>(d); }

}  // namespace dtplan::mesh
