// Loop partitioning for non-dividing splits: a loop whose body holds a guard that the loop's own
// variable decides (`if (jo*16 + ji < 40)` inside jo's loop, with ji running over [0, 16)) is cut
// into a main part, where the guard provably holds for every inner iteration, and a tail that keeps
// it. The simplifier then drops the guard from the main part, so the inner loops there become
// guard-free and vectorizable; only the tail iterations pay for the check.
//
// It handles guards of the form `linear < linear` (or <=, and conjunctions of them) in which the
// loop variable has a positive coefficient and every other variable belongs to a loop nested
// inside; anything else is left as it is. Vectorized and unrolled loops are not partitioned.
#pragma once
#include "ir/stmt.h"

namespace tessel {

Stmt partition_loops(const Stmt& s);

}  // namespace tessel
