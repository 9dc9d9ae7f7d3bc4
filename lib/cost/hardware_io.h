#pragma once
// Hardware profiles as JSON files (configs/hardware/NAME.json) and how a profile is found by name.
//
// Format (sections "nccl", "collective", "compute", "alpha_beta", "measured", "notes" and
// "description" are optional; unknown keys are errors so that typos do not pass silently):
//   {"name": "h100-dgx", "description": "...", "notes": ["..."],
//    "gpu": {"model": "H100-SXM5-80GB", "arch": "hopper",
//            "peak_flop_per_s": {"bf16": 9.894e14, ...}, "hbm_byte_per_s": 3.35e12,
//            "hbm_capacity_bytes": 85899345920},
//    "node": {"gpus_per_node": 8, "cpu_vendor": "intel", "intra_fabric": "nvswitch",
//             "nvlink_links_per_gpu": 18, "nvlink_link_gbyte_per_s": 20.6, "nvls": true,
//             "pcie_gbyte_per_s": 48, "nics_per_node": 8, "nic_gbit_per_s": 400},
//    "nccl": {"version": "2.28", "collnet": false},
//    "collective": {"launch_floor_us": 0, "straggler_skew_us": 0},
//    "compute": {"compute_efficiency": 0.7, "memory_efficiency": 0.7, "launch_floor_us": 7},
//    "measured": [{"collective": "all_reduce", "ranks": 16, "nodes": 2,
//                  "min_ranks_per_node": 8, "max_ranks_per_node": 8, "source": "...",
//                  "points": [[1024, 39.1], [2048, 39.4]]}]}
// Errors name the file and the field path: "h100.json: node.nic_gbit_per_s: must be > 0".
//
// Lookup of a name: $DTPLAN_CONFIG_DIR, then a `configs` or `share/dtplan/configs` folder in the
// executable's folder or any of its ancestors (the source tree of a build; an install prefix,
// P/bin/dtplan with P/share/dtplan/configs), then the same in the working directory or any of
// its ancestors; the profile is <configs>/hardware/NAME.json. Anything with a '/' or ending in
// ".json" is a file path instead.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "cost/hardware.h"

namespace dtplan::cost {

// Parses and validates a profile. `source` prefixes every error (a file name).
core::Result<HardwareProfile> parse_hardware_json(std::string_view text, std::string_view source);

// The profile as pretty-printed JSON in the format above (keys in that order), newline-ended.
// @post parse_hardware_json(hardware_to_json(p), s) == p for every valid p.
std::string hardware_to_json(const HardwareProfile& profile);

// Folders that may hold hardware/NAME.json, in lookup order, without duplicates.
struct ConfigSearch {
  std::vector<std::filesystem::path> roots;
};

// The lookup order above. `executable` may be empty (then only the environment and the working
// directory are searched).
ConfigSearch config_search(const std::filesystem::path& executable);

// A profile by name (or path, see above). Errors (kBadInput) name `what`, list the known names
// and suggest the nearest: "--hardware: no hardware profile 'h100-dgz'; did you mean 'h100-dgx'?".
core::Result<HardwareProfile> load_hardware(std::string_view name_or_path,
                                            const ConfigSearch& search, std::string_view what);

// The profile names found by `search`, sorted, without duplicates.
std::vector<std::string> list_hardware(const ConfigSearch& search);

}  // namespace dtplan::cost
