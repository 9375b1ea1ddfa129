// The GEMM schedule template: the knobs of ops/gemm.h's packed-panel schedule (ops::GemmConfig),
// their choices derived from the shape and the target.
//
// Knobs: panel width bn (the packing of B: half a vector to four vectors of the target, those that
// divide N), a three-level split of the rows [outer, middle, register rows] with the register rows
// bounded by the register file, the k split [outer, unrolled], the order of the outer row loops and
// the panel loop, whether the outermost loop alone or the two outermost loops fused run in
// parallel, and whether the k loop inside the register tile is unrolled. Each configuration maps
// to a GemmConfig run by ops::schedule_gemm; the default configuration is the target's fallback
// (ops::gemm_fallback_config), so it lowers to the ops/ default schedule.
#pragma once
#include <memory>

#include "datasets/workloads.h"
#include "search/spaces/schedule_template.h"
#include "target/target.h"

namespace tessel::search {

std::shared_ptr<const ScheduleTemplate> make_gemm_template(const GemmShape& shape, const Target& target);

}  // namespace tessel::search
