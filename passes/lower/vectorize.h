// Vectorization: a ForKind::Vectorized loop with a constant extent of 2..64 becomes straight-line
// vector code; its variable becomes ramp(min, 1, lanes), loop-invariant operands are broadcast,
// and loads and stores take vector indices (kept as Ramps where possible, see
// passes/arith/vector_algebra.h). Loops nested inside keep running, with vector bodies.
//
// It assumes what a data-parallel axis of a lowered stage guarantees: distinct iterations write
// distinct elements, and no iteration reads what another one writes.
// Anything it cannot turn into equivalent vector code falls back to a serial loop, never to wrong
// code: a guard whose condition differs across lanes, a store to an address that is not a ramp
// over the lanes, a loop whose bounds depend on the lane, a local allocation inside the loop, an
// extent that is not a constant in [2, 64].
#pragma once
#include "ir/stmt.h"

namespace tessel {

// `register_bits`: the target's vector register width. A loop whose vector would outgrow one
// register and whose extent is no power of two runs as consecutive vectors of power-of-two lanes
// (24 floats on 512 bits: 16 + 8), each vectorized as above. 0: one vector per loop, always.
Stmt vectorize_loops(const Stmt& s, int register_bits = 0);

}  // namespace tessel
