// Arithmetic on vector index expressions that keeps them as Ramp and Broadcast instead of
// lane-wise operations, so a vectorized access stays a contiguous or strided load:
//   ramp(b, s, n) + x16(c)       = ramp(b + c, s, n)
//   ramp(b1, s1, n) + ramp(b2, s2, n) = ramp(b1 + b2, s1 + s2, n)
//   ramp(b, s, n) * x16(c)       = ramp(b * c, s * c, n)      (integers only)
//   x16(a) op x16(b)             = x16(a op b)
// Shared by the simplifier and the vectorizer.
#pragma once
#include "ir/expr.h"

namespace tessel::arith {

// a `kind` b as a Ramp or Broadcast when a rule above applies (a scalar operand counts as a
// broadcast of the other's lane count); an undefined Expr otherwise. The scalar parts are built
// with the plain operators, not simplified.
Expr combine_vectors(NodeKind kind, const Expr& a, const Expr& b);

}  // namespace tessel::arith
