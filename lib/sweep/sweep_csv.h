#pragma once
// The CSV form of a sweep (`dtplan sweep --csv FILE`): RFC 4180, one header line, one line per
// candidate, best first; times and tokens/s with 3 decimals, mfu (a fraction) with 6, bytes as
// integers, booleans as true/false; batch, grad_accum and checkpoint are the candidate's or the
// model's.
//
//   rank,shape,names,flatten,batch,grad_accum,checkpoint,parallelize,step_time_us,compute_us,
//   communication_us,exposed_us,other_us,memory_bytes_per_rank,tokens_per_s_per_gpu,mfu,
//   fits_memory,feasible,optimal,tp_within_node,note
//   1,8x8,"dp_shard,tp",dp_shard+tp,16,1,selective_op,optimal,812.500,700.000,150.000,100.000,
//   12.500,1073741824,2521.000,0.412000,true,true,true,true,
//
// `flatten` lists the flattened meshes as their dims joined by "+", separated by spaces.

#include <string>
#include <string_view>

#include "sweep/sweep_result.h"

namespace dtplan::sweep {

std::string sweep_csv(const SweepResult& result);

// One CSV field: quoted (with "" for ") when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

}  // namespace dtplan::sweep
