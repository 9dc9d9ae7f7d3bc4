#include "sim/tensor_collectives.h"

#include <functional>
#include <optional>

#include "placement/chunk.h"
#include "sim/local_ops.h"

namespace dtplan::sim {

namespace {

// A member rank the store holds: its global rank, group rank g and group size n.
struct Held {
  std::int64_t rank = 0;
  std::int64_t g = 0;
  std::int64_t n = 0;
};

// A rewrite of one member's tensor; nullopt keeps the tensor as it is.
using Rewrite =
    std::function<core::Result<std::optional<Tensor>>(const Tensor&, const Held& member)>;

// Runs `call` on the members' tensors rewritten by `pre`, then rewrites the outputs by `post`.
core::Status run_rewritten(ProcessGroup& pg, const CollectiveCall& call, RankTensors& tensors,
                           const Rewrite& pre, const Rewrite& post) {
  std::vector<Held> held;
  for (const Group& group : call.groups) {
    for (std::size_t g = 0; g < group.size(); ++g) {
      if (tensors.has(group[g])) {
        held.push_back(
            {group[g], static_cast<std::int64_t>(g), static_cast<std::int64_t>(group.size())});
      }
    }
  }
  std::vector<std::optional<Tensor>> rewritten;
  rewritten.reserve(held.size());
  for (const Held& h : held) {
    auto r = pre(tensors.at(h.rank), h);
    if (!r.ok()) return std::move(r).error().with_context(describe(call));
    rewritten.push_back(std::move(r).value());
  }
  RankTensors staged(tensors.world_size());
  for (std::size_t i = 0; i < held.size(); ++i) {
    staged.set(held[i].rank, rewritten[i] ? std::move(*rewritten[i]) : tensors.take(held[i].rank));
  }
  if (core::Status s = pg.run(call, staged); !s.ok()) {
    for (std::size_t i = 0; i < held.size(); ++i) {  // unchanged by the failed call
      if (!rewritten[i]) tensors.set(held[i].rank, staged.take(held[i].rank));
    }
    return s;
  }
  for (const Held& h : held) {
    Tensor out = staged.take(h.rank);
    auto r = post(out, h);
    if (!r.ok()) return std::move(r).error().with_context(describe(call));
    tensors.set(h.rank, r.value() ? std::move(*r.value()) : std::move(out));
  }
  return {};
}

core::Result<std::optional<Tensor>> keep() { return std::optional<Tensor>(); }

core::Result<std::optional<Tensor>> some(core::Result<Tensor> t) {
  if (!t.ok()) return std::move(t).error();
  return std::optional<Tensor>(std::move(t).value());
}

core::Status check_dim(const Tensor& t, std::int64_t dim, std::string_view what) {
  if (dim >= 0 && dim < t.rank()) return {};
  return core::Error::bad_input(std::string(what) + " " + std::to_string(dim) +
                                " is out of range for " + describe(t));
}

}  // namespace

core::Status all_gather_dim(ProcessGroup& pg, std::vector<Group> groups, RankTensors& tensors,
                            std::int64_t dim) {
  const CollectiveCall call{collective::Collective::kAllGather, std::move(groups)};
  auto pre = [dim](const Tensor& t, const Held&) -> core::Result<std::optional<Tensor>> {
    DTPLAN_CHECK(check_dim(t, dim, "gather dim"));
    return keep();
  };
  auto post = [dim](const Tensor& out, const Held& h) {
    return dim == 0 ? keep() : some(merge_rank_major(out, h.n, dim));
  };
  return run_rewritten(pg, call, tensors, pre, post);
}

core::Status reduce_scatter_dim(ProcessGroup& pg, std::vector<Group> groups, ReduceOp op,
                                RankTensors& tensors, std::int64_t dim) {
  const CollectiveCall call{collective::Collective::kReduceScatter, std::move(groups), op};
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(tensors.world_size()), 0);
  auto pre = [dim, &sizes](const Tensor& t, const Held& h) -> core::Result<std::optional<Tensor>> {
    DTPLAN_CHECK(check_dim(t, dim, "scatter dim"));
    const std::int64_t size = t.shape()[static_cast<std::size_t>(dim)];
    sizes[static_cast<std::size_t>(h.rank)] = size;
    if (size % h.n == 0) return dim == 0 ? keep() : some(split_rank_major(t, h.n, dim));
    // torch.chunk pieces, each zero-padded to the full chunk size, back to back along dim.
    const std::int64_t c = placement::chunk_size(size, h.n);
    DTPLAN_TRY(std::vector<Tensor> pieces, chunk(t, dim, h.n));
    for (Tensor& p : pieces) {
      DTPLAN_TRY(p, pad_to(p, dim, c));
    }
    DTPLAN_TRY(Tensor padded, cat(pieces, dim));
    return some(split_rank_major(padded, h.n, dim));
  };
  auto post = [dim, &sizes](const Tensor& out,
                            const Held& h) -> core::Result<std::optional<Tensor>> {
    const std::int64_t size = sizes[static_cast<std::size_t>(h.rank)];
    const std::int64_t length = placement::chunk_length(size, h.n, h.g);
    if (length == out.shape()[static_cast<std::size_t>(dim)]) return keep();
    return some(narrow(out, dim, 0, length));  // trim this rank's padding
  };
  return run_rewritten(pg, call, tensors, pre, post);
}

core::Status shard_dim_alltoall(ProcessGroup& pg, std::vector<Group> groups, RankTensors& tensors,
                                std::int64_t gather_dim, std::int64_t shard_dim) {
  const CollectiveCall call{collective::Collective::kAllToAll, std::move(groups)};
  auto pre = [=](const Tensor& t, const Held& h) -> core::Result<std::optional<Tensor>> {
    DTPLAN_CHECK(check_dim(t, gather_dim, "gather dim"));
    DTPLAN_CHECK(check_dim(t, shard_dim, "shard dim"));
    return shard_dim == 0 ? keep() : some(split_rank_major(t, h.n, shard_dim));
  };
  auto post = [=](const Tensor& out, const Held& h) {
    return gather_dim == 0 ? keep() : some(merge_rank_major(out, h.n, gather_dim));
  };
  return run_rewritten(pg, call, tensors, pre, post);
}

}  // namespace dtplan::sim
