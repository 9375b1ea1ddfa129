// exp and tanh of float32 scalars and vectors as inline LLVM IR (internal to the LLVM CPU back end).
//
// LLVM 14 lowers llvm.exp on a vector to one libm call per lane, and tanh has no intrinsic at all:
// an element-wise kernel with a sigmoid or tanh then spends most of its time in scalar calls (the
// DCGAN generator's final tanh, an LSTM cell's gates). These are polynomials in plain arithmetic
// instead, vectorized at any width, accurate to a few ulp over float's whole range:
//
//   exp(x) = 2^n · e^r, n = round(x / ln 2), r = x − n·ln 2 in two parts (Cody and Waite's
//            reduction, |r| <= ln 2 / 2), e^r by its Taylor polynomial to r^7 (truncation below
//            1e-8 relative), 2^n as two powers of two built in the exponent bits, so that results
//            underflow through the subnormals to 0 and overflow to inf as libm's do; NaN stays NaN.
//   tanh(x) = x − x³/3 + 2x⁵/15 − ... (Taylor to x^11, error below 1e-9) for |x| < 0.3, else
//            sign(x) · (1 − 2 / (exp(2|x|) + 1)), where the subtraction no longer cancels digits.
#pragma once
#include <llvm/IR/IRBuilder.h>

namespace tessel::llvm_cpu {

// e^x of a float32 scalar or vector.
llvm::Value* emit_exp_f32(llvm::IRBuilder<>& b, llvm::Value* x);

// tanh(x) of a float32 scalar or vector.
llvm::Value* emit_tanh_f32(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace tessel::llvm_cpu
