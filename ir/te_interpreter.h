// The reference interpreter: evaluates a tensor expression directly from its definition, with no
// schedule and no lowering, element by element. It is the oracle of the differential tests, so it
// is written to be obviously right, not fast: use it on small shapes.
//
// Scalar operations are those of ir/scalar_semantics.h (shared with the loop interpreter and
// constant folding): integers wrap to the type's width, integer Div/Mod are floor division/modulo
// (division by zero is an error), float32 results are rounded after every operation, float min/max
// follow the NaN rule written there, Cast from float to int truncates toward zero (out of range is
// an error). Beyond scalars: both sides of a Select are evaluated, so a read out of a tensor's bounds is an
// error even on the side not taken (compiled code would perform that read too); a reduction
// combines, in axis order (first axis outermost), only the points where its condition holds and
// yields the combiner's identity when there are none.
//
//   NDArray a = NDArray::random_uniform({4, 3}, DataType::float32(), 1);
//   NDArray c = evaluate(C, {{A, a}, {B, b}});
#pragma once
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/tensor.h"
#include "runtime/ndarray.h"

namespace tessel {

// Values of placeholder operations, keyed by operation.
using TensorValues = std::unordered_map<const OperationNode*, const NDArray*>;

// Evaluates every output, computing each producer once. Throws UserError if a placeholder has no
// value or a value of the wrong shape or type, a read leaves a tensor's bounds, an integer divides
// by zero, a float cast to an integer type does not fit it, an intrinsic other than pure math is
// called, or the expression holds a loop-IR-only node (Load, Ramp, Broadcast).
std::vector<NDArray> evaluate(const std::vector<Tensor>& outputs, const TensorValues& inputs);
NDArray evaluate(const Tensor& output, const TensorValues& inputs);
// The same, with the inputs given as (placeholder, value) pairs.
NDArray evaluate(const Tensor& output, const std::vector<std::pair<Tensor, NDArray>>& inputs);

// The IR type of a runtime element type (runtime/ cannot see ir/type.h; see runtime/ndarray.h).
DataType to_data_type(ElementType t);

}  // namespace tessel
