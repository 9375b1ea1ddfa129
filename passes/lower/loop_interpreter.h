// A reference interpreter for lowered (flattened) loop IR: runs a LoweredFunc on arrays, with
// scalar and vector (Ramp/Broadcast, up to 64 lanes) values. It is the oracle for lowering tests
// and a reference for back ends, written to be obviously right rather than fast.
//
// Semantics (the IR's, as in ir/te_interpreter.h): integers wrap to their width; integer Div/Mod
// are floor division/modulo (plain for unsigned); float32 results are rounded after every
// operation; Cast from float to int truncates toward zero; every loop kind runs serially in
// order. Errors are thrown as UserError: an out-of-bounds Load or Store, division by zero, an
// unbound variable, a node that lowering should have removed (Provide, Realize, TensorRead,
// Reduce). Local buffers start filled with NaN (floats) or a garbage pattern (integers), so a
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
