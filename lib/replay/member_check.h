#pragma once
// The agreement check the SPMD backends run before a collective moves data: every member of a
// group knows only its own tensor, so members that pass different dtypes or shapes, issue
// different calls, or fail their local checks would otherwise corrupt buffers or wait forever.
// Each member encodes what it would run as a few integers and their negations; one element-wise
// max-reduction over the group (MPI_Allreduce, ncclAllReduce) then yields, for every word, the
// maximum and minus the minimum, so every member learns whether all agree and whether any failed.
//
//   AgreementWords w = agreement_words(call, &tensor, status);   // this member
//   ... element-wise max of w over the group -> reduced ...
//   DTPLAN_CHECK(agreement_status(reduced, w, status, "all_reduce(sum) on [...]: group [0,1]",
//                                 describe(tensor)));

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "sim/collective_call.h"
#include "sim/rank_tensors.h"
#include "sim/tensor.h"

namespace dtplan::replay {

// "all_reduce(sum) on [[0,1],[2,3]]: group [0,1]": the context of a member's errors.
std::string member_context(const sim::CollectiveCall& call, const sim::Group& group);

// The local checks of member `rank` of `group` before an SPMD backend runs `call`, and its
// output tensor (uninitialised, allocated now so that nothing can fail once data moves): the
// store's world is `world`, the rank holds a tensor with data, a reducing call has a reducible
// dtype (else kUnsupported, as the fake), the output shape is valid (sim::output_shape).
// Errors name the call, the group and the rank.
core::Result<sim::Tensor> member_output(const sim::CollectiveCall& call, const sim::Group& group,
                                        std::int64_t rank, std::int64_t world,
                                        const sim::RankTensors& tensors);

// {failure kind, dtype, rank (ndim), shape hash, call hash} followed by their negations.
inline constexpr std::size_t kAgreementFacts = 5;
using AgreementWords = std::array<std::int64_t, 2 * kAgreementFacts>;

// What this member contributes: its local check's failure kind (0 when `local` is ok) and, when
// it passed, `tensor`'s dtype and shape; the call's collective, op, root and groups always.
// Hashes are 62-bit FNV-1a, so negation never overflows. @pre tensor != nullptr when local.ok().
AgreementWords agreement_words(const sim::CollectiveCall& call, const sim::Tensor* tensor,
                               const core::Status& local);

// The status this member returns after the max-reduction: its own error if it failed; otherwise
// an error of the failing member's kind when another failed ("another member ... failed"); a
// kBadInput naming this member's tensor (`mine`) when the members disagree; else ok. `context`
// names the call and group.
core::Status agreement_status(const AgreementWords& reduced, const core::Status& local,
                              std::string_view context, std::string_view mine);

}  // namespace dtplan::replay
