// Sliding windows and storage folding (Halide's SlidingWindow and StorageFolding), for stages
// stored outside the loop they are computed at (Stage::store_at).
//
// Such a stage is computed per iteration of its compute loop over the region its consumers read
// there, [m(r), m(r) + E) along one axis (bound inference gives the symbolic start m(r) and the
// constant extent E). When that start only moves forward, the iterations after the first compute
// only the points past the previous region, [m(r - 1) + E, m(r) + E): the rest is in storage
// already. The storage then needs only the last E points along that axis: it is folded to a
// ring of the next power of two F >= E, index i stored at i mod F (unless F is no smaller than
// the tensor). A point written in iteration r is overwritten only by a point at least F further
// on, which no read of iteration r reaches.
#pragma once
#include "ir/stmt.h"
#include "passes/lower/iter_relations.h"
#include "passes/lower/stage_plan.h"

namespace tessel {

struct SlidingWindow {
  int dim = -1;        // the root axis the region moves along; -1: it does not move
  int64_t fold = 0;    // the storage's extent along dim, a power of two at least the region's
                       // extent; 0 where that is no smaller than the tensor's (no folding)
  Var loop;            // the compute loop's variable (it starts at 0)
  Expr previous_end;   // where the previous iteration's region ends along dim: m(r - 1) + E
};

// The sliding window of `s` (s.slides()), from `ranges`, its region per compute-loop iteration.
// Throws UserError if the region moves along two axes or may move backwards.
SlidingWindow plan_sliding_window(const PlannedStage& s, const AxisRanges& ranges);

// Whether the point at `index` along w.dim is computed in this iteration: every point of the
// region in the first iteration, afterwards those past the previous iteration's region (for a
// region that does not move, none).
Expr computes_point(const SlidingWindow& w, const Expr& index);

// The storage of `s` for `body` (its store loop's body): the region of one iteration, along w.dim
// folded to [0, w.fold), every write and read of it in `body` taken modulo w.fold there (or the
// whole axis, unfolded).
Stmt realize_sliding(const PlannedStage& s, const AxisRanges& ranges, const SlidingWindow& w, const Stmt& body);

}  // namespace tessel
