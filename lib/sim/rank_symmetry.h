#pragma once
// Rank symmetry of the step simulation: ranks whose whole view of the step is the same are
// simulated once.
//
//   const SlotLinks at = slot_links(program, hardware);
//   const LinkMap links = make_link_map(program, hardware);
//   if (auto q = quotient_slots(program, at, links)) run_step_engine(q->program, q->links, ...);
//
// Every task costs the same on every rank (step_program.h), so what tells ranks apart is only
// which groups they share and which links those groups use. A shift of one mesh dim's
// coordinate by one (StepProgram::shifts) is a symmetry of the simulation when it maps every
// group of every partition onto a group, every node onto a node and every GPU onto the GPU of
// the same local index (so NVLink ports onto NVLink ports and NICs onto NICs). On a row-major
// mesh that holds for the dims whose stride is a multiple of the GPUs per node: on 8x16x8 with 8
// GPUs per node, dp and cp; the 1,024 ranks fall into 8 classes, the ranks of one node. Where a
// shift by one is not a symmetry, its smallest power (a shift by k <= GPUs per node) that is
// one serves: on 8x2x128x4 (dp_replicate, dp_shard, cp, tp) with 8 GPUs per node, cp (stride 4)
// shifted by 2 moves one node, so the 8,192 ranks fall into 8 classes. When the quotient with
// the powers is not exact (below), the shifts by one alone are tried.
//
// The quotient keeps the lowest slot of each class (its representative) and, per partition, the
// groups that hold representatives, with those members alone; a link stands for its class. It
// is exact when (checked here, else no quotient):
//   - each kept group's members' representatives are its own representative members (the group
//     starts when they are ready, as the full group starts when all its members are, which are
//     each as ready as their representative), and there is one kept group per class of groups;
//   - no two groups of one class of one partition share a link (so a link class carries as many
//     concurrent instances in the quotient as each of its links does in the full run, and every
//     instance progresses at the same rate).
// Then every representative's start and end times are those of the full run, as are every
// other rank's (its representative's); only the heap's order among events of equal time can
// differ, which can move a flow that ends exactly when another does by rounding.

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/link_sharing.h"
#include "sim/step_engine.h"
#include "sim/step_program.h"

namespace dtplan::sim {

struct SlotQuotient {
  StepProgram program;            // representative slots only; the same tasks and streams
  LinkMap links;                  // one link per class of links
  std::vector<std::int32_t> rep;  // per slot of the full program: its representative's slot
  std::int32_t symmetries = 0;    // shifts that are symmetries (generators of the classes)
};

// The quotient of `program` by the shifts that are symmetries; nullopt where none is (or the
// quotient would not be exact, see above). `links` is make_link_map(program, ...) and `at` the
// slot_links of the same hardware.
std::optional<SlotQuotient> quotient_slots(const StepProgram& program, const SlotLinks& at,
                                           const LinkMap& links);

// The full run from the quotient's: every slot takes its representative's start and end times.
EngineRun expand_run(const EngineRun& quotient, const std::vector<std::int32_t>& rep);

}  // namespace dtplan::sim
