// One stage's loop nest (TVM's MakeLoopNest, MakeProvide and MakeReduction): a For per leaf axis
// (of the kind the schedule gave it; a bound loop inside its thread_extent attribute, an axis's
// pragmas as attributes around its loop), the root indices recovered from the loop variables,
// guards for iterations past a non-dividing split (and past the tensor's edge for a compute_at
// region), placed right inside the innermost loop they depend on, and the Provide of the body.
//
// A reduction becomes an init nest (identity, over the data-parallel loops inside the first
// reduction loop) placed just outside the reduction loops, and an update nest
// (value = combine(value, source), under the reduction's condition).
#pragma once
#include <functional>

#include "ir/stmt.h"
#include "passes/lower/iter_relations.h"
#include "passes/lower/sliding_window.h"
#include "passes/lower/stage_plan.h"

namespace tessel {

// Builds the body of the loop at leaf position `pos` from what the stage itself runs there
// (`rest`): it puts the stages computed at that loop first, with their storage realized around
// the rest of the body, which reads it.
using AttachFn = std::function<Stmt(int pos, const Stmt& rest)>;

// A loop around a stage computed at another stage's loop: an ancestor's leaf down to the attach
// point, with its extent (0 where it is not constant).
struct EnclosingLoop {
  IterVar leaf;
  int64_t extent;
};

// `window`, for a stage stored outside its compute loop (store_at), guards the points earlier
// iterations computed. `enclosing`, outermost first, are the loops around a stage computed at
// another's (Stage::prefetch_whole counts their iterations too).
Stmt make_loop_nest(const PlannedStage& s, const AxisRanges& ranges, const AttachFn& attach,
                    const SlidingWindow* window = nullptr, std::vector<EnclosingLoop> enclosing = {});

}  // namespace tessel
