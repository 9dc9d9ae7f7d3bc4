#include "replay/member_check.h"

#include <string>

#include "core/hash.h"
#include "replay/comm_split.h"
#include "sim/reduce_engine.h"

namespace dtplan::replay {

namespace {

using core::kFnvOffset;

constexpr std::uint64_t kHashMask = (std::uint64_t{1} << 62) - 1;

// FNV-1a of the value's 8 bytes, least significant first (the same on every process).
void mix(std::uint64_t& h, std::int64_t value) {
  h = core::fnv1a_u64(static_cast<std::uint64_t>(value), h);
}

std::int64_t finish(std::uint64_t h) { return static_cast<std::int64_t>(h & kHashMask); }

std::int64_t call_hash(const sim::CollectiveCall& call) {
  std::uint64_t h = kFnvOffset;
  mix(h, static_cast<std::int64_t>(call.collective));
  if (collective::facts(call.collective).reduces) mix(h, static_cast<std::int64_t>(call.op));
  if (call.collective == collective::Collective::kBroadcast) mix(h, call.root);
  for (const Group& g : canonical_groups(call.groups)) {
    mix(h, static_cast<std::int64_t>(g.size()));
    for (std::int64_t r : g) mix(h, r);
  }
  return finish(h);
}

std::int64_t shape_hash(const sim::Shape& shape) {
  std::uint64_t h = kFnvOffset;
  for (std::int64_t d : shape) mix(h, d);
  return finish(h);
}

}  // namespace

std::string member_context(const sim::CollectiveCall& call, const sim::Group& group) {
  return sim::describe(call) + ": group " + sim::group_string(group);
}

core::Result<sim::Tensor> member_output(const sim::CollectiveCall& call, const sim::Group& group,
                                        std::int64_t rank, std::int64_t world,
                                        const sim::RankTensors& tensors) {
  const std::string context = member_context(call, group);
  auto bad = [&](const std::string& message) {
    return core::Error::bad_input(context + ": " + message);
  };
  if (tensors.world_size() != world) {
    return bad("the tensor store holds a world of " + std::to_string(tensors.world_size()) +
               " ranks, the process group " + std::to_string(world));
  }
  if (!tensors.has(rank)) return bad("rank " + std::to_string(rank) + " has no tensor");
  const sim::Tensor& in = tensors.at(rank);
  if (!in.has_data()) return bad("rank " + std::to_string(rank) + " has a shape-only tensor");
  if (collective::facts(call.collective).reduces) {
    DTPLAN_CHECK(sim::check_reducible(in.dtype(), call.op, context));
  }
  auto shape = sim::output_shape(call.collective, static_cast<std::int64_t>(group.size()),
                                 in.shape(), "rank " + std::to_string(rank));
  if (!shape.ok()) return shape.error().with_context(context);
  auto out = sim::Tensor::uninitialized(in.dtype(), std::move(shape).value());
  if (!out.ok()) return out.error().with_context(context);
  return out;
}

AgreementWords agreement_words(const sim::CollectiveCall& call, const sim::Tensor* tensor,
                               const core::Status& local) {
  std::array<std::int64_t, kAgreementFacts> facts{};
  facts[4] = call_hash(call);
  if (!local.ok()) {
    facts[0] = static_cast<std::int64_t>(local.error().kind);
  } else {
    facts[1] = static_cast<std::int64_t>(tensor->dtype());
    facts[2] = tensor->rank();
    facts[3] = shape_hash(tensor->shape());
  }
  AgreementWords words{};
  for (std::size_t i = 0; i < kAgreementFacts; ++i) {
    words[i] = facts[i];
    words[kAgreementFacts + i] = -facts[i];
  }
  return words;
}

core::Status agreement_status(const AgreementWords& reduced, const core::Status& local,
                              std::string_view context, std::string_view mine) {
  if (!local.ok()) return local;
  if (reduced[0] != 0) {
    return core::Error{static_cast<core::ErrorKind>(reduced[0]),
                       std::string(context) +
                           ": another member of the group failed its checks (its error says why)"};
  }
  for (std::size_t i = 1; i < kAgreementFacts; ++i) {
    if (reduced[i] != -reduced[kAgreementFacts + i]) {
      return core::Error::bad_input(std::string(context) +
                                    ": the members pass different dtypes, shapes or calls; this "
                                    "member passes " +
                                    std::string(mine));
    }
  }
  return {};
}

}  // namespace dtplan::replay
