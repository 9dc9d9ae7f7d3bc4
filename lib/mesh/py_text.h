#pragma once
// Python-style rendering of names and sizes, so that DeviceMesh error messages read like
// PyTorch's: ('dp', 'tp'), ('dp',), ['dp', 'tp'], (2, 4), (8,).

#include <cstdint>
#include <span>
#include <string>

namespace dtplan::mesh {

// A tuple of quoted names. Examples: ('dp', 'tp'); a one-element tuple keeps its comma: ('dp',).
std::string py_tuple(std::span<const std::string> names);

// A list of quoted names. Example: ['dp', 'tp', 'dp_tp'].
std::string py_list(std::span<const std::string> names);

// A tuple of integers. Examples: (2, 4); (8,).
std::string py_tuple(std::span<const std::int64_t> values);

}  // namespace dtplan::mesh
