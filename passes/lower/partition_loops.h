// Loop partitioning for non-dividing splits: a loop whose body holds a guard that the loop's own
// variable decides (`if (jo*16 + ji < 40)` inside jo's loop, with ji running over [0, 16)) is cut
// into a main part, where the guard provably holds for every inner iteration, and a tail that keeps
// it. The simplifier then drops the guard from the main part, so the inner loops there become
// guard-free and vectorizable; only the tail iterations pay for the check.
//
// It handles guards, in ifs and in selects (an inlined pad reads through one), whose conjuncts are
// `linear < linear` or `<=` with the loop variable's coefficient of either sign: a guard that
// holds from some iteration on (a left or top border) splits off a prefix, one that stops holding
// (a ragged edge, a right or bottom border) a suffix. Other variables must belong to loops nested
// inside, or, on serial loops, be bound outside: the guard then decides a branch around the main
// part instead (see partition_loops.cpp). Vectorized and unrolled loops are not partitioned; a
// parallel loop is not cut into pieces (the border ones would run on one thread) but keeps all its
// iterations, each branching to the guard-free main body or the guarded one. A guard that only
// outer variables (and loops inside that stay whole) decide, such as a pixel tile's ragged last
// rows around a reduction, branches around the outermost serial loop it is invariant in to a
// guard-free copy, instead of being left to LLVM's unswitching.
#pragma once
#include "ir/stmt.h"

namespace tessel {

Stmt partition_loops(const Stmt& s);

}  // namespace tessel
