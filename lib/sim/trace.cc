#include "sim/trace.h"

namespace dtplan::sim {

std::string describe(const TraceEntry& entry) {
  std::string out =
      "#" + std::to_string(entry.call) + " " + std::string(collective::name(entry.collective));
  if (entry.op.has_value()) out += "(" + std::string(placement::reduce_op_name(*entry.op)) + ")";
  if (entry.root.has_value()) out += "(root " + std::to_string(*entry.root) + ")";
  out += " " + std::string(core::dtype_name(entry.dtype)) + " on " + group_string(entry.ranks) +
         ": " + std::to_string(entry.rank_bytes) + " B per rank, S " +
         std::to_string(entry.nccl_bytes) + " B, " +
         std::string(cost::algorithm_name(entry.algorithm));
  if (entry.order != ReductionOrder::kNone) {
    out += ", " + std::string(reduction_order_name(entry.order)) + " order";
  }
  return out;
}

}  // namespace dtplan::sim
