// The GEMM schedule template: ops/gemm.h's packed-panel schedule with its choices opened up.
//
// Knobs: panel width bn (the packing of B, a divisor of N from 8..64), a three-level split of the
// rows [outer, middle, register rows], the k split [outer, unrolled], the order of the outer row
// loops and the panel loop, whether the outermost loop alone or the two outermost loops fused run
// in parallel, and whether the k loop inside the register tile is unrolled. The default
// configuration is ops::schedule_gemm_cpu's.
#pragma once
#include <memory>

#include "datasets/workloads.h"
#include "search/spaces/schedule_template.h"

namespace tessel::search {

std::shared_ptr<const ScheduleTemplate> make_gemm_template(const GemmShape& shape, const Target& target);

}  // namespace tessel::search
