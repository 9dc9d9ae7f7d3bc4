// torchtitan_style(): each part of the rule in parallel_style.h, the merged FSDP part, the
// embedding's swapped styles, and the placements no torchtitan style names.

#include "strategy/parallel_style.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace dtplan::strategy::testing {

namespace {

using placement::Placement;

std::string style(std::string_view name, std::size_t rank, std::vector<Placement> placements,
                  std::vector<std::string> names) {
  return torchtitan_style(name, rank, placements, names);
}

const Placement kR = Placement::replicate();
const Placement kS0 = Placement::shard(0);
const Placement kS1 = Placement::shard(1);

}  // namespace

TEST_CASE("torchtitan_style: FSDP on dp_shard, Colwise and Rowwise on tp") {
  const std::vector<std::string> dp_tp = {"dp", "tp"};
  CHECK(style("layers.0.attention.wq.weight", 2, {kS0, kS0}, dp_tp) ==
        "FSDP(dp) + ColwiseParallel(tp)");
  CHECK(style("layers.0.attention.wo.weight", 2, {kS0, kS1}, dp_tp) ==
        "FSDP(dp) + RowwiseParallel(tp)");
  CHECK(style("layers.0.attention.wq.weight", 2, {kR, kS0}, dp_tp) == "ColwiseParallel(tp)");
  CHECK(style("layers.0.attention.wq.weight", 2, {kS0, kR}, dp_tp) == "FSDP(dp)");
  CHECK(style("norm.weight", 1, {kR, kR}, dp_tp) == "Replicate");
  // Strided FSDP (tp also shards dim 0 and splits first) is still FSDP.
  CHECK(style("layers.0.feed_forward.w1.weight", 2, {Placement::strided_shard(0, 8), kS0}, dp_tp) ==
        "FSDP(dp) + ColwiseParallel(tp)");
}

TEST_CASE("torchtitan_style: the embedding's styles are swapped, FSDP dims merge") {
  const std::vector<std::string> dp_tp = {"dp_shard", "tp"};
  CHECK(style("tok_embeddings.weight", 2, {kS0, kS0}, dp_tp) ==
        "FSDP(dp_shard) + RowwiseParallel(tp)");
  CHECK(style("tok_embeddings.weight", 2, {kR, kS1}, dp_tp) == "ColwiseParallel(tp)");
  CHECK(style("output.weight", 2, {kS0, kS0}, dp_tp) == "FSDP(dp_shard) + ColwiseParallel(tp)");
  CHECK(style("layers.0.attention.wq.weight", 2, {kS0, kS0, kS0}, {"dp_shard", "cp", "tp"}) ==
        "FSDP(dp_shard,cp) + ColwiseParallel(tp)");
  CHECK(style("layers.0.attention.wq.weight", 2, {kR, kS0, kS0},
              {"dp_replicate", "dp_shard", "tp"}) == "FSDP(dp_shard) + ColwiseParallel(tp)");
}

TEST_CASE("torchtitan_style: placements no style names give -") {
  const std::vector<std::string> dp_tp = {"dp", "tp"};
  CHECK(style("layers.0.attention.wq.weight", 2, {kS1, kS0}, dp_tp) == "-");  // FSDP is dim 0
  CHECK(style("norm.weight", 1, {kR, kS0}, dp_tp) == "-");  // tp on a 1-D parameter
  CHECK(style("layers.0.attention.wq.weight", 2, {Placement::partial(), kR}, dp_tp) == "-");
  CHECK(style("layers.0.attention.wq.weight", 2, {kS0, kR}, {"x", "tp"}) == "-");  // no role
  CHECK(style("layers.0.attention.wq.weight", 2, {kR, kR}, {"x", "y"}) == "Replicate");
  CHECK(style("layers.0.attention.wq.weight", 2, {kS0, kR}, {"dp_replicate", "tp"}) == "-");
}

}  // namespace dtplan::strategy::testing
