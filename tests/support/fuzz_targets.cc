#include "support/fuzz_targets.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collective/collective.h"
#include "core/checked.h"
#include "core/dtype.h"
#include "core/strings.h"
#include "core/units.h"
#include "cost/hardware_io.h"
#include "cost/nccl_tests_log.h"
#include "graph/graph_io.h"
#include "graph/model_io.h"
#include "layout/algebra.h"
#include "layout/layout_text.h"
#include "mesh/mesh_io.h"
#include "placement/local_shape.h"
#include "placement/placement_text.h"
#include "placement/tensor_spec.h"
#include "plan/plan_io.h"
#include "redist/redist_plan_io.h"

namespace dtplan::testing {

namespace {

// Meshes and models bigger than this are parsed but not built by the fuzz bodies: building is
// linear in their size and would only slow the search down (their limits have unit tests).
constexpr std::int64_t kFuzzMaxRanks = 4096;
constexpr std::int64_t kFuzzMaxLayers = 4;

// Line i of the input (empty past the end).
std::string_view line(std::string_view text, std::size_t i) {
  std::vector<std::string_view> lines = core::split(text, '\n');
  return i < lines.size() ? lines[i] : std::string_view();
}

std::string fail(std::string_view what, std::string_view detail) {
  return std::string(what) + ": " + std::string(detail);
}

// Sizes, integer lists, names, dtypes and collectives: every parser a flag value goes through.
std::string fuzz_size(std::string_view input) {
  auto size = core::parse_size(input, "--size");
  if (size.ok()) {
    if (*size < 0) return fail("parse_size", "negative result");
    auto again = core::parse_size(core::format_size(*size), "--size");
    if (!again.ok() || *again != *size) return fail("format_size", "does not parse back");
  }
  auto range = core::parse_size_range(input, "--sizes");
  if (range.ok()) {
    if (range->empty()) return fail("parse_size_range", "empty sweep");
    if (!std::is_sorted(range->begin(), range->end())) return fail("parse_size_range", "unsorted");
  }
  auto ints = core::parse_int_list(input, "--shape");
  if (ints.ok()) {
    auto again = core::parse_int_list(core::format_int_list(*ints).substr(1), "--shape");
    (void)again;  // "[1,2]" minus "[" ends in "]": an error, but never a crash
    (void)core::checked_product(*ints, "numel");
  }
  auto names = core::parse_name_list(input, "--names");
  if (names.ok()) {
    auto again = core::parse_name_list(core::join(*names, ","), "--names");
    if (!again.ok() || *again != *names) return fail("parse_name_list", "join does not parse back");
  }
  auto dtype = core::parse_dtype(input, "--dtype");
  if (dtype.ok() && core::dtype_bytes(*dtype) < 1) return fail("parse_dtype", "element size < 1");
  (void)collective::parse_collective(input, "--collective");
  return {};
}

// Line 1: placements; line 2: tensor shape; line 3: mesh sizes; line 4: dtype (default f32).
std::string fuzz_placement(std::string_view input) {
  auto list = placement::parse_placement_list(line(input, 0), "--from");
  if (!list.ok()) return {};
  auto again = placement::parse_placement_list(placement::format_placement_list(*list), "--from");
  if (!again.ok() || *again != *list) return fail("format_placement_list", "does not parse back");
  auto shape = core::parse_int_list(line(input, 1), "--shape");
  auto mesh = core::parse_int_list(line(input, 2), "--mesh");
  if (!shape.ok() || !mesh.ok()) return {};
  core::DType dtype = core::parse_dtype(line(input, 3), "--dtype").value_or(core::DType::kF32);
  auto spec = placement::TensorSpec::make(*shape, dtype, *list, *mesh);
  if (!spec.ok()) return {};
  // The canonical text gives the same spec back.
  std::string text = placement::format_placement_list(spec->placements(), spec->shard_order());
  auto reparsed = placement::parse_placement_list(text, "--to");
  if (!reparsed.ok()) return fail("canonical text", text + " does not parse");
  auto respec = placement::TensorSpec::make(*shape, dtype, *reparsed, *mesh);
  if (!respec.ok() || *respec != *spec) return fail("canonical text", text + " is another spec");
  (void)placement::num_shards(*spec, *mesh);
  (void)placement::is_evenly_sharded(*spec, *mesh);
  // Local shapes at the first and last coordinates: never larger than the global shape.
  for (bool last : {false, true}) {
    std::vector<std::int64_t> coord(mesh->size(), 0);
    if (last) {
      for (std::size_t d = 0; d < coord.size(); ++d) coord[d] = (*mesh)[d] - 1;
    }
    auto local = placement::local_shape(*spec, *mesh, coord);
    if (!local.ok()) continue;
    if (local->size() != shape->size()) return fail("local_shape", "wrong rank");
    for (std::size_t i = 0; i < local->size(); ++i) {
      if ((*local)[i] < 0 || (*local)[i] > (*shape)[i]) return fail("local_shape", "out of range");
    }
    (void)placement::local_bytes(*spec, *mesh, coord);
  }
  return {};
}

// A layout "S:D" (or an IntTuple): parse, print back, coalesce.
std::string fuzz_layout(std::string_view input) {
  (void)layout::parse_int_tuple(input);
  auto l = layout::parse_layout(input);
  if (!l.ok()) return {};
  std::string text = layout::to_string(*l);
  auto again = layout::parse_layout(text);
  if (!again.ok() || *again != *l) return fail("to_string", text + " does not parse back");
  layout::Layout c = layout::coalesce(*l);
  if (layout::size(c) != layout::size(*l)) return fail("coalesce", "changed the size of " + text);
  return {};
}

// A mesh file: parse, then build it (when small) and print its JSON.
std::string fuzz_mesh(std::string_view input) {
  auto config = mesh::parse_mesh_config(input, "fuzz.json");
  if (!config.ok()) return {};
  auto ranks = core::checked_product(config->shape, "ranks");
  if (!ranks.ok() || *ranks > kFuzzMaxRanks ||
      (config->ranks && static_cast<std::int64_t>(config->ranks->size()) > kFuzzMaxRanks)) {
    return {};
  }
  auto loaded = mesh::build_mesh(*config, "fuzz.json");
  if (!loaded.ok()) return {};
  (void)mesh::mesh_json(loaded->root).dump();
  for (const mesh::DeviceMesh& f : loaded->flattened) (void)mesh::flattened_json(f).dump();
  return {};
}

// A model file, builder or graph document; a graph prints back to an equal graph.
std::string fuzz_model(std::string_view input) {
  auto graph = graph::parse_graph_json(input);
  if (graph.ok()) {
    std::string text = graph::graph_to_json(*graph);
    auto again = graph::parse_graph_json(text);
    if (!again.ok()) return fail("graph_to_json", "does not parse back: " + again.error().message);
    if (!(*again == *graph)) return fail("graph_to_json", "parses back to another graph");
  }
  auto config = graph::parse_llama3_config(input);
  if (config.ok() && config->n_layers > kFuzzMaxLayers) return {};
  (void)graph::parse_model(input, "fuzz.json");
  return {};
}

// Reads `input` with `read(text, source)`; a value read must print back (`write`) to text that
// reads to an equal value.
template <class Read, class Write>
std::string round_trip(std::string_view input, std::string_view what, Read read, Write write) {
  auto first = read(input, "fuzz.json");
  if (!first.ok()) return {};
  auto again = read(write(*first), "again.json");
  if (!again.ok()) return fail(what, "does not parse back: " + again.error().message);
  if (!(*again == *first)) return fail(what, "parses back to another value");
  return {};
}

// A hardware profile.
std::string fuzz_hardware(std::string_view input) {
  return round_trip(input, "hardware_to_json", cost::parse_hardware_json, cost::hardware_to_json);
}

// A redistribution plan (redistribute --json).
std::string fuzz_redist_plan(std::string_view input) {
  return round_trip(input, "redist::plan_to_json", redist::read_plan_json, redist::plan_to_json);
}

// A whole-model plan (plan --out, simulate --plan).
std::string fuzz_plan(std::string_view input) {
  (void)plan::is_model_plan_json(input);
  return round_trip(input, "plan::plan_to_json", plan::read_plan_json, plan::plan_to_json);
}

// An nccl-tests log (calibrate --nccl-tests); every run read satisfies the @post.
std::string fuzz_nccl_log(std::string_view input) {
  auto runs = cost::parse_nccl_tests_log(input, "all_reduce_perf.log");
  if (!runs.ok()) return {};
  for (const cost::NcclTestsRun& run : *runs) {
    if (run.rows.empty() || run.layout.ranks < 2) return fail("nccl log", "run violates @post");
  }
  return {};
}

const FuzzTarget kTargets[] = {
    {"size", "a size, size sweep, integer list, name list, dtype or collective", fuzz_size},
    {"placement", "placements / shape / mesh sizes / dtype, one per line", fuzz_placement},
    {"layout", "a layout S:D", fuzz_layout},
    {"mesh", "a mesh file (configs/meshes)", fuzz_mesh},
    {"model", "a model file (configs/models): builder or graph", fuzz_model},
    {"hardware", "a hardware profile (configs/hardware)", fuzz_hardware},
    {"redist_plan", "a redistribution plan (redistribute --json)", fuzz_redist_plan},
    {"plan", "a whole-model plan (plan --out)", fuzz_plan},
    {"nccl_log", "an nccl-tests log (calibrate --nccl-tests)", fuzz_nccl_log},
};

}  // namespace

std::span<const FuzzTarget> fuzz_targets() { return kTargets; }

const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const FuzzTarget& t : kTargets) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace dtplan::testing
