#include "replay/member_check.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

#include "support/sim_reference.h"

namespace dtplan::replay {
namespace {

using collective::Collective;
using core::DType;
using core::ErrorKind;
using sim::Tensor;

// What the SPMD backends do: every member's words, an element-wise max, every member's status.
std::vector<core::Status> agree(const sim::CollectiveCall& call,
                                const std::vector<const Tensor*>& tensors,
                                const std::vector<core::Status>& local) {
  std::vector<AgreementWords> words;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    words.push_back(agreement_words(call, tensors[i], local[i]));
  }
  AgreementWords reduced = words[0];
  for (const AgreementWords& w : words) {
    for (std::size_t j = 0; j < w.size(); ++j) reduced[j] = std::max(reduced[j], w[j]);
  }
  std::vector<core::Status> out;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    out.push_back(agreement_status(reduced, local[i], "ctx",
                                   tensors[i] != nullptr ? sim::describe(*tensors[i]) : ""));
  }
  return out;
}

TEST_CASE("member check: agreement over a group") {
  const sim::CollectiveCall call{Collective::kAllReduce, {{0, 1, 2}}, sim::ReduceOp::kSum, 0};
  const Tensor a = Tensor::zeros(DType::kF32, {4, 2}).value();
  const Tensor b = Tensor::zeros(DType::kF32, {2, 4}).value();
  const Tensor c = Tensor::zeros(DType::kBF16, {4, 2}).value();
  const core::Status ok;
  for (const core::Status& s : agree(call, {&a, &a, &a}, {ok, ok, ok})) CHECK(s.ok());
  // Another shape (same element count) or dtype on one member: every member fails.
  for (const Tensor* odd : {&b, &c}) {
    auto statuses = agree(call, {&a, odd, &a}, {ok, ok, ok});
    for (std::size_t i = 0; i < 3; ++i) {
      REQUIRE_FALSE(statuses[i].ok());
      CHECK(statuses[i].error().kind == ErrorKind::kBadInput);
      CHECK(statuses[i].error().message ==
            "ctx: the members pass different dtypes, shapes or calls; this member passes " +
                sim::describe(i == 1 ? *odd : a));
    }
  }
  // A member that failed keeps its error; the others fail with its kind.
  const core::Status failed = core::Error::unsupported("dtype u8 cannot be reduced");
  auto statuses = agree(call, {&a, nullptr, &a}, {ok, failed, ok});
  CHECK(statuses[1].error() == failed.error());
  for (std::size_t i : {0, 2}) {
    CHECK(statuses[i].error().kind == ErrorKind::kUnsupported);
    CHECK(statuses[i].error().message.find("another member of the group failed") !=
          std::string::npos);
  }
}

TEST_CASE("member check: members issuing different calls disagree") {
  const Tensor a = Tensor::zeros(DType::kF32, {4}).value();
  const core::Status ok;
  const sim::CollectiveCall base{Collective::kAllReduce, {{0, 1}}, sim::ReduceOp::kSum, 0};
  std::vector<sim::CollectiveCall> others = {
      {Collective::kAllReduce, {{0, 1}}, sim::ReduceOp::kMax, 0},
      {Collective::kReduceScatter, {{0, 1}}, sim::ReduceOp::kSum, 0},
      {Collective::kAllReduce, {{0, 1}, {2, 3}}, sim::ReduceOp::kSum, 0},
      {Collective::kAllReduce, {{1, 0}}, sim::ReduceOp::kSum, 0},
  };
  for (const auto& other : others) {
    AgreementWords w0 = agreement_words(base, &a, ok);
    const AgreementWords w1 = agreement_words(other, &a, ok);
    for (std::size_t j = 0; j < w0.size(); ++j) w0[j] = std::max(w0[j], w1[j]);
    CHECK_FALSE(agreement_status(w0, ok, "ctx", "f32[4]").ok());
  }
  // The same call with its groups listed in another order agrees (one canonical list); the op of
  // a non-reducing collective and the root of a non-broadcast are ignored.
  const sim::CollectiveCall a1{Collective::kAllGather, {{2, 3}, {0, 1}}, sim::ReduceOp::kMax, 1};
  const sim::CollectiveCall a2{Collective::kAllGather, {{0, 1}, {2, 3}}, sim::ReduceOp::kSum, 0};
  CHECK(agreement_words(a1, &a, ok) == agreement_words(a2, &a, ok));
}

TEST_CASE("member check: a member's local checks and output") {
  std::mt19937_64 rng(1618);
  sim::RankTensors t(4);
  t.set(0, testing::random_tensor(DType::kF32, {6, 2}, rng));
  t.set(1, Tensor::shape_only(DType::kF32, {6, 2}).value());
  t.set(2, testing::random_tensor(DType::kU8, {6}, rng));
  t.set(3, Tensor::zeros(DType::kF32, {}).value());
  const sim::Group g = {0, 1, 2};
  auto call = [](Collective c) {
    return sim::CollectiveCall{c, {{0, 1, 2}}, sim::ReduceOp::kSum, 0};
  };
  CHECK(member_output(call(Collective::kAllGather), g, 0, 4, t).value().shape() ==
        sim::Shape{18, 2});
  CHECK(member_output(call(Collective::kReduceScatter), g, 0, 4, t).value().shape() ==
        sim::Shape{2, 2});
  CHECK(member_output(call(Collective::kAllToAll), g, 2, 4, t).value().shape() == sim::Shape{6});
  struct Bad {
    Collective c;
    std::int64_t rank;
    std::int64_t world;
    ErrorKind kind;
    std::string message;
  };
  const Bad bad[] = {
      {Collective::kAllReduce, 0, 8, ErrorKind::kBadInput,
       "all_reduce(sum) on [[0,1,2]]: group [0,1,2]: the tensor store holds a world of 4 ranks, "
       "the process group 8"},
      {Collective::kAllReduce, 1, 4, ErrorKind::kBadInput,
       "all_reduce(sum) on [[0,1,2]]: group [0,1,2]: rank 1 has a shape-only tensor"},
      {Collective::kReduceScatter, 2, 4, ErrorKind::kUnsupported,
       "reduce_scatter(sum) on [[0,1,2]]: group [0,1,2]: dtype u8 cannot be reduced (f32, bf16, "
       "f16, f64, i32, i64, c64 can)"},
      {Collective::kAllGather, 3, 4, ErrorKind::kBadInput,
       "all_gather on [[0,1,2]]: group [0,1,2]: rank 3: all_gather needs a tensor with a dim 0, "
       "got a 0-d tensor"},
  };
  for (const Bad& b : bad) {
    auto r = member_output(call(b.c), g, b.rank, b.world, t);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == b.kind);
    CHECK(r.error().message == b.message);
  }
  sim::RankTensors empty(4);
  CHECK(member_output(call(Collective::kBroadcast), g, 0, 4, empty).error().message ==
        "broadcast(root 0) on [[0,1,2]]: group [0,1,2]: rank 0 has no tensor");
}

}  // namespace
}  // namespace dtplan::replay
