// Unrolling: a ForKind::Unrolled loop with constant bounds and at most kMaxUnroll iterations is
// replaced by one copy of its body per iteration, with the loop variable substituted by its value
// (the simplifier then folds the constants). Longer or non-constant loops stay serial loops.
#pragma once
#include "ir/stmt.h"

namespace tessel {

constexpr int64_t kMaxUnroll = 64;

Stmt unroll_loops(const Stmt& s);

}  // namespace tessel
