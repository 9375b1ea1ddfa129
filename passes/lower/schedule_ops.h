// Schedule to loop program (TVM's ScheduleOps): every planned stage's loop nest, with the nests
// of the stages computed at one of its loops inserted at the top of that loop's body, each wrapped
// in a Realize of the region bound inference found. Root stages run one after the other in
// producer-first order; those that are not function arguments are realized around the whole body.
#pragma once
#include <unordered_set>

#include "ir/stmt.h"
#include "passes/lower/bound_inference.h"

namespace tessel {

// `external` holds the operations stored in function arguments, which get no Realize.
Stmt schedule_ops(const StagePlan& plan, const StageRanges& ranges,
                  const std::unordered_set<const OperationNode*>& external);

}  // namespace tessel
