// Symbolic interval analysis: the range of values an integer expression covers when some of its
// variables sweep over intervals while the others stay fixed (symbolic). Bound inference uses it to
// find the region of a producer that one iteration of a consumer's outer loops reads: the outer
// loop variables stay symbolic, the inner ones are relaxed to their loop ranges.
//
//   // A[xo*32 + xi] with xi in [0, 31]   ->   [xo*32, xo*32 + 31]
//   Interval r = eval_interval(xo * 32 + xi, {{xi.get(), {0, 31}}});
#pragma once
#include <unordered_map>

#include "ir/expr.h"

namespace tessel::arith {

// [min, max], both inclusive; an undefined end is unbounded.
struct Interval {
  Expr min, max;

  static Interval point(const Expr& e) { return {e, e}; }
  bool bounded() const { return min.defined() && max.defined(); }
};

using VarIntervals = std::unordered_map<const VarNode*, Interval>;

// The interval of e when each variable in `relax` takes any value in its interval; other
// variables stay as they are. Both ends come out simplified.
Interval eval_interval(const Expr& e, const VarIntervals& relax);

}  // namespace tessel::arith
