// The algebraic simplifier: constant folding, canonical linear index arithmetic, floor div/mod
// rules, min/max and comparisons decided from variable ranges, and removal of statements that
// provably do nothing (guards that always hold, loops that never run).
//
// Inside a For, the loop variable's range [min, min + extent) is known, so a guard such as
// `if (xo*32 + xi < 100)` disappears when the loop bounds prove it. Rewrites preserve the IR's
// semantics exactly, with one assumption shared with the code generators: signed index arithmetic
// does not overflow (so (x*8 + y) / 8 may become x + y / 8).
//
//   Expr e = simplify((i * 8 + j) / 8, {{i.get(), {0, 15}}, {j.get(), {0, 7}}});   // i
#pragma once
#include "ir/expr.h"
#include "ir/stmt.h"
#include "passes/arith/const_bound.h"

namespace tessel {

Expr simplify(const Expr& e, const arith::VarBounds& vars = {});
Stmt simplify(const Stmt& s, const arith::VarBounds& vars = {});

// True when `cond` holds for every value of the variables within `vars`; false when unknown.
bool can_prove(const Expr& cond, const arith::VarBounds& vars = {});

}  // namespace tessel
