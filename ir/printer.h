// Human-readable, TVM-like text of expressions, statements, lowered functions and tensor
// definitions, for debugging, error messages and test snapshots.
//
// Conventions of the text:
//   - parentheses only where precedence needs them; a right operand of the same precedence is
//     parenthesized, so the text shows the tree's shape ("a - (b - c)", "a + (b + c)");
//   - integer `/` and `%` are FLOOR division and modulo (the IR's semantics, see ir/expr.h), not
//     C's truncating operators;
//   - int32 constants print bare ("5"), other integer types with a suffix ("5i64", "3i8", "1u8"),
//     bools as true/false, float32 with an "f" suffix ("0.5f", "1.0f");
//   - vectors: ramp(base, stride, lanes) and x16(v) for a 16-lane broadcast;
//   - loops: "for (i, 0, 32) {" with the loop kind as keyword (for, parallel, vectorized, unrolled,
//     thread_binding) and (var, min, extent), a bound loop adding its tag:
//     "thread_binding (i, 0, 32, threadIdx.x) {"; blocks indent by two spaces;
//     "realize C([min, extent], ...)" and "allocate buf[float32 * size]" likewise give a start and a
//     size, followed by " @shared" when the storage scope is not "local";
//   - calls: address arguments of intrinsics print as "&buf[index]"; an Evaluate statement is its
//     expression on a line; attributes: "attr [subject] key = value {", the subject a variable or
//     buffer name, a quoted name ("threadIdx.x"), or nothing ("attr pragma_unroll = 1 {").
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/stmt.h"
#include "ir/tensor.h"

namespace tessel {

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);
std::ostream& operator<<(std::ostream& os, const LoweredFunc& f);
// One line defining the tensor's operation: "C[i, j] = sum(...)  // float32[4, 5], k in [0, 3)".
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// A reduction's combiner as the text names it: "sum", "max", "min".
const char* reduce_op_name(ReduceOp op);
std::string to_string(const Expr& e);
std::string to_string(const Stmt& s);
std::string to_string(const LoweredFunc& f);
std::string to_string(const Tensor& t);
// Every operation the outputs depend on, producers first, one definition per line.
std::string to_string(const std::vector<Tensor>& outputs);

}  // namespace tessel
