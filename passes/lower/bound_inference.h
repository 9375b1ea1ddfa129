// Bound inference (TVM's InferBound): the range of every axis of every planned stage.
//
// A stage at the root covers its whole output. A stage computed at (parent, axis) covers, per
// iteration of the parent's loops down to that axis, the region its consumers read there: loop
// variables outside or at the attach axis stay symbolic, those inside it (and all loops of
// consumers nested further in) are relaxed to their ranges. The result has a symbolic min and a
// constant extent (the constant upper bound of the extent when it varies); a region that cannot be
// bounded, or that covers the whole tensor anyway, becomes the whole tensor. Split and fuse then
// carry root ranges down to the loops.
#pragma once
#include <unordered_map>

#include "passes/lower/iter_relations.h"
#include "passes/lower/stage_plan.h"

namespace tessel {

using StageRanges = std::unordered_map<const StageNode*, AxisRanges>;

// Throws UserError when a stage computed at a loop is read outside that loop.
StageRanges infer_bounds(const StagePlan& plan);

}  // namespace tessel
