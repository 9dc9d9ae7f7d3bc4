#include "replay/plan_gemms.h"

#include <map>
#include <optional>
#include <tuple>

#include "core/checked.h"
#include "placement/chunk.h"

namespace dtplan::replay {

namespace {

using Shape = std::vector<std::int64_t>;

struct Global {
  Shape out;  // the output shape
  std::int64_t k = 0;
};

bool is_matmul(const std::string& op) {
  return op == "mm" || op == "addmm" || op == "bmm" || op == "einsum";
}

// The output shape and k of a supported form, from the op's and its producers' shapes.
std::optional<Global> global_form(const plan::PlanOp& op, const std::vector<plan::PlanOp>& ops) {
  auto input = [&](std::size_t slot) -> const Shape* {
    if (slot >= op.inputs.size()) return nullptr;
    const auto p = static_cast<std::size_t>(op.inputs[slot]);
    return p < ops.size() ? &ops[p].shape : nullptr;
  };
  const Shape& out = op.shape;
  const std::size_t first = op.op == "addmm" ? 1 : 0;
  const Shape* a = input(first);
  const Shape* b = input(first + 1);
  if (a == nullptr || b == nullptr || a->empty() || b->size() < 2 || out.size() < 2) {
    return std::nullopt;
  }
  const std::int64_t k = a->back();
  if (op.op == "mm" || op.op == "addmm") {
    if (*a != Shape{out[0], k} || *b != Shape{k, out[1]} || out.size() != 2) return std::nullopt;
  } else if (op.op == "bmm") {
    if (out.size() != 3 || *a != Shape{out[0], out[1], k} || *b != Shape{out[0], k, out[2]}) {
      return std::nullopt;
    }
  } else {  // einsum: a linear layer
    Shape want_a(out.begin(), out.end() - 1);
    want_a.push_back(k);
    if (*b != Shape{k, out.back()} || *a != want_a) return std::nullopt;
  }
  return Global{out, k};
}

}  // namespace

PlanGemms plan_gemms(const ReplaySource& source) {
  PlanGemms out;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, core::DType>, std::size_t> index;
  const std::vector<std::int64_t>& mesh = source.mesh.shape;
  for (std::size_t i = 0; i < source.ops.size(); ++i) {
    const plan::PlanOp& op = source.ops[i];
    if (!is_matmul(op.op)) continue;
    const std::optional<Global> g = global_form(op, source.ops);
    if (!g || op.placements.size() != mesh.size()) {
      ++out.skipped;
      continue;
    }
    Shape local = g->out;
    std::int64_t k = g->k;
    for (std::size_t d = 0; d < mesh.size(); ++d) {
      const placement::Placement& p = op.placements[d];
      if (p.is_partial()) {
        k = placement::chunk_size(k, mesh[d]);
      } else if (p.is_shard_like() && p.dim() >= 0 &&
                 static_cast<std::size_t>(p.dim()) < local.size()) {
        Shape::value_type& len = local[static_cast<std::size_t>(p.dim())];
        len = placement::chunk_size(len, mesh[d]);
      }
    }
    auto rows = core::checked_product(std::span(local).first(local.size() - 1), "m");
    const std::int64_t m = rows.ok() ? *rows : 0;  // an overflowing m is skipped
    const std::int64_t n = local.back();
    if (m <= 0 || n <= 0 || k <= 0) {
      ++out.skipped;
      continue;
    }
    auto key = std::make_tuple(m, n, k, op.dtype);
    auto it = index.find(key);
    if (it != index.end()) {
      ++out.jobs[it->second].count;
      continue;
    }
    index.emplace(key, out.jobs.size());
    out.jobs.push_back(
        {static_cast<std::int32_t>(i), op.name, m, n, k, op.dtype, op.compute_us, 1});
  }
  return out;
}

}  // namespace dtplan::replay
