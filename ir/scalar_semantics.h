// The one scalar semantics of the IR: the value of every arithmetic, comparison, logic and cast
// node on scalar operands. The tensor-expression interpreter, the loop interpreter and constant
// folding all evaluate with these functions, and the back ends follow the same rules (the
// contract of passes/lower/lower.h and backends/backend.h).
//
// Integers: two's complement at the type's width; Add, Sub and Mul wrap. Signed Div and Mod are
// floor division and the matching modulo (the sign of the divisor); INT_MIN / -1 wraps to INT_MIN
// and INT_MIN % -1 is 0. Unsigned Div and Mod are plain. Min and Max compare signed or unsigned by
// type. Division or modulo by zero has no value: the interpreters report it, constant folding
// leaves it alone, and compiled code may do anything (x86 traps).
//
// Floats: each operation is rounded to the type (float32 arithmetic is float arithmetic).
// Mod is a - floor(a / b) * b computed as fma(-floor(a / b), b, a), one rounding for the multiply
// and subtract. Min(a, b) is `a < b ? a : b` and Max(a, b) is `a > b ? a : b`: the operand order
// matters, so when either operand is NaN the result is b, and min(-0, +0) = +0, min(+0, -0) = -0
// (what one minss/maxss instruction computes). Comparisons are IEEE: with a NaN operand only NE
// holds.
//
// Casts: float to integer truncates toward zero; a NaN or a value that does not fit the target
// type has no value (reported by the interpreters, undefined in compiled code). Integer to float
// rounds to nearest; integer to integer wraps (sign-extending signed sources); anything to bool is
// `!= 0` (a NaN is true).
//
// Math intrinsics (ir/intrinsic.h) are libm's in the interpreters and constant folding. A back end
// may compute exp, tanh and sigmoid its own way: llvm_cpu's float32 ones are inline polynomials
// within 2 ulp of the exact value (backends/llvm_cpu/float_math.h), with libm's signed zeros,
// infinities and NaN, so they may differ from libm's in the last bits.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/node.h"
#include "ir/type.h"

namespace tessel::scalar {

// One lane of a value. Integers and bools live in `i`, wrapped to their type (sign-extended for
// signed types, zero-extended for unsigned ones, 0 or 1 for bool); floats live in `f`, rounded to
// their type.
struct Value {
  int64_t i = 0;
  double f = 0;
};

Value of_int(int64_t v, DataType t);   // wrapped to t
Value of_float(double v, DataType t);  // rounded to t
bool truthy(Value v, DataType t);

// v as an integer of type t holds it: two's complement at t's width (0 or 1 for bool).
int64_t wrap(int64_t v, DataType t);
// floor(a / b) and a - b * floor(a / b) for b != 0, with INT64_MIN / -1 wrapping.
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

// a `kind` b for operands of type `t` (the element type): Add, Sub, Mul, Div, Mod, Min, Max give
// a value of type t; EQ, NE, LT, LE, GT, GE, And, Or give a bool (0 or 1 in `i`). No value for an
// integer division or modulo by zero.
std::optional<Value> binary(NodeKind kind, DataType t, Value a, Value b);
Value logical_not(Value a, DataType t);
// v of type `from` as type `to`; no value for a float that does not fit an integer type.
std::optional<Value> cast(Value v, DataType from, DataType to);

}  // namespace tessel::scalar
