// The arithmetic of split and fuse between a stage's root axes and its loops (TVM's
// PassDownDomain and PassUpIndex): ranges flow down from root axes to the loops, and loop
// variables flow up into root-axis values.
//
// Every loop runs over [0, extent) with the leaf axis's variable; a root axis may start at a
// symbolic min (the region a compute_at stage computes), which its value adds back:
//   split   parent = parent.min + outer * factor + inner       (guarded when factor does not divide)
//   fuse    outer  = outer.min + fused / extent(inner),  inner = inner.min + fused % extent(inner)
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/schedule.h"

namespace tessel {

// Ranges of one stage's axes; every extent is a constant.
using AxisRanges = std::unordered_map<const IterVarNode*, Range>;

int64_t const_extent(const AxisRanges& ranges, const IterVar& axis);

// Adds the range of every axis that split/fuse derived, given the root axes' ranges.
void pass_down_ranges(const StageNode& stage, AxisRanges& ranges);

struct LeafMapping {
  std::unordered_map<const IterVarNode*, Expr> values;  // each axis's value from the loop variables
  std::vector<Expr> guards;                             // iterations to skip: past the end of a non-dividing split
};

// The value of every axis (in particular the root axes) as an expression of the loop variables.
LeafMapping map_leaves_to_roots(const StageNode& stage, const AxisRanges& ranges);

}  // namespace tessel
