#include "placement/placement.h"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <unordered_set>
#include <vector>

namespace dtplan::placement {
namespace {

// Every placement with dims in [-2, 2], split factors 1..4 and every reduce op.
std::vector<Placement> small_domain() {
  std::vector<Placement> out = {Placement::replicate()};
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax, ReduceOp::kMin}) {
    out.push_back(Placement::partial(op));
  }
  for (std::int32_t d = -2; d <= 2; ++d) {
    out.push_back(Placement::shard(d));
    for (std::int64_t sf = 2; sf <= 4; ++sf) out.push_back(Placement::strided_shard(d, sf));
  }
  return out;
}

TEST_CASE("placements are small canonical values") {
  static_assert(sizeof(Placement) == 16);
  CHECK(Placement() == Placement::replicate());
  CHECK(Placement::partial() == Placement::partial(ReduceOp::kSum));
  CHECK(Placement::strided_shard(0, 1) == Placement::shard(0));
  CHECK(Placement::strided_shard(0, 2) != Placement::shard(0));  // no PyTorch equality quirk
  CHECK(Placement::strided_shard(0, 2) != Placement::strided_shard(0, 3));
  CHECK(Placement::shard(-1).with_dim(1) == Placement::shard(1));
  CHECK(Placement::strided_shard(-1, 2).with_dim(0) == Placement::strided_shard(0, 2));

  const Placement ss = Placement::strided_shard(1, 2);
  CHECK(ss.is_strided_shard());
  CHECK_FALSE(ss.is_shard());
  CHECK(ss.is_shard_like());
  CHECK(ss.is_shard_like(1));
  CHECK_FALSE(ss.is_shard_like(0));
  CHECK(ss.split_factor() == 2);
  CHECK(Placement::shard(3).is_shard());
  CHECK(Placement::shard(3).dim() == 3);
  CHECK(Placement::shard(3).split_factor() == 1);
  CHECK(Placement::partial(ReduceOp::kMax).reduce_op() == ReduceOp::kMax);
  CHECK(Placement::partial(ReduceOp::kMax).is_partial());
  CHECK_FALSE(Placement::replicate().is_shard_like());
}

TEST_CASE("predicates partition the domain and == is value equality") {
  std::vector<Placement> domain = small_domain();
  for (const Placement& p : domain) {
    int kinds = (p.is_replicate() ? 1 : 0) + (p.is_partial() ? 1 : 0) + (p.is_shard() ? 1 : 0) +
                (p.is_strided_shard() ? 1 : 0);
    CHECK(kinds == 1);
    CHECK(p.is_shard_like() == (p.is_shard() || p.is_strided_shard()));
  }
  // Distinct constructions are distinct values with distinct hashes; ordering is strict.
  std::set<Placement> ordered(domain.begin(), domain.end());
  std::unordered_set<Placement> hashed(domain.begin(), domain.end());
  std::set<std::size_t> hashes;
  for (const Placement& p : domain) hashes.insert(hash_value(p));
  CHECK(ordered.size() == domain.size());
  CHECK(hashed.size() == domain.size());
  CHECK(hashes.size() == domain.size());
  for (const Placement& a : domain) {
    for (const Placement& b : domain) {
      CHECK((a == b) == ((a <=> b) == 0));
      if (a == b) CHECK(hash_value(a) == hash_value(b));
    }
  }
  std::map<Placement, int> as_key = {{Placement::shard(0), 1}, {Placement::replicate(), 2}};
  CHECK(as_key.at(Placement::shard(0)) == 1);
}

TEST_CASE("partial ops: only sum and avg mix") {
  const std::vector<ReduceOp> ops = {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax,
                                     ReduceOp::kMin};
  for (ReduceOp a : ops) {
    for (ReduceOp b : ops) {
      const bool sum_avg = (a == ReduceOp::kSum || a == ReduceOp::kAvg) &&
                           (b == ReduceOp::kSum || b == ReduceOp::kAvg);
      CHECK(partial_ops_compatible(a, b) == (a == b || sum_avg));
      CHECK(partial_ops_compatible(a, b) == partial_ops_compatible(b, a));
    }
  }
  CHECK_FALSE(partial_ops_compatible(ReduceOp::kMax, ReduceOp::kMin));
  CHECK(reduce_op_name(ReduceOp::kAvg) == "avg");
}

TEST_CASE("short and long printing") {
  CHECK(to_string(Placement::shard(0)) == "S(0)");
  CHECK(to_string(Placement::shard(-1)) == "S(-1)");
  CHECK(to_string(Placement::strided_shard(0, 2)) == "_S(0,2)");
  CHECK(to_string(Placement::replicate()) == "R");
  CHECK(to_string(Placement::partial(ReduceOp::kMin)) == "P(min)");
  CHECK(to_long_string(Placement::shard(1)) == "Shard(dim=1)");
  CHECK(to_long_string(Placement::strided_shard(0, 4)) == "_StridedShard(dim=0, sf=4)");
  CHECK(to_long_string(Placement::replicate()) == "Replicate()");
  CHECK(to_long_string(Placement::partial()) == "Partial(sum)");
}

}  // namespace
}  // namespace dtplan::placement
