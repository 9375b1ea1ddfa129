// A reference interpreter for lowered (flattened) loop IR: runs a LoweredFunc on arrays, with
// scalar and vector (Ramp/Broadcast, up to 64 lanes) values. It is the oracle for lowering tests
// and a reference for back ends, written to be obviously right rather than fast.
//
// Semantics: scalar operations are those of ir/scalar_semantics.h, shared with the tensor-
// expression interpreter and constant folding; every loop kind (ThreadBinding included) runs
// serially in order; attributes do not change what runs; Evaluate runs the statement intrinsics
// prefetch (nothing) and fill, and any buffer scope is plain memory. Errors are thrown as
// UserError: an out-of-bounds Load, Store or fill, division by zero, a float cast to an integer
// type it does not fit, an unbound variable, an intrinsic it does not implement, a node that
// lowering should have removed (Provide, Realize, TensorRead, Reduce). Local buffers start filled with NaN (floats) or a garbage pattern (integers), so a
// read before a write shows up in the results.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/stmt.h"
#include "runtime/ndarray.h"

namespace tessel {

// Runs f with args[i] bound to f.args[i]; each array must have that argument's shape and type.
void run_lowered(const LoweredFunc& f, const std::vector<NDArray*>& args);

// The value of a scalar integer or bool expression (no loads) for the given variable values.
int64_t evaluate_int(const Expr& e, const std::unordered_map<const VarNode*, int64_t>& vars);

}  // namespace tessel
