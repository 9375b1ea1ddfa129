// exp and tanh of float32 as inline LLVM IR (backends/llvm_cpu/float_math.h).
#include "backends/llvm_cpu/float_math.h"

#include <llvm/IR/Intrinsics.h>

namespace tessel::llvm_cpu {

namespace {

llvm::Value* constant(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

// a·b + c, fused where the target has FMA (llvm.fmuladd never becomes a libm call).
llvm::Value* mul_add(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, {x, y, z});
}

// c[0] + x·(c[1] + x·(c[2] + ...)).
llvm::Value* horner(llvm::IRBuilder<>& b, llvm::Value* x, std::initializer_list<double> c) {
  auto it = std::rbegin(c);
  llvm::Value* sum = constant(x, *it);
  for (++it; it != std::rend(c); ++it) sum = mul_add(b, sum, x, constant(x, *it));
  return sum;
}

// `element`, or a vector of it with as many lanes as `like` has.
llvm::Type* with_lanes_of(llvm::Type* element, llvm::Type* like) {
  auto* v = llvm::dyn_cast<llvm::VectorType>(like);
  return v ? llvm::VectorType::get(element, v->getElementCount()) : element;
}

// 2^n for an int32 n in [-75, 64]: n + 127 in a float's exponent bits.
llvm::Value* power_of_two(llvm::IRBuilder<>& b, llvm::Value* n_int) {
  llvm::Type* int_type = n_int->getType();
  llvm::Value* biased = b.CreateAdd(n_int, llvm::ConstantInt::get(int_type, 127));
  llvm::Value* bits = b.CreateShl(biased, llvm::ConstantInt::get(int_type, 23));
  return b.CreateBitCast(bits, with_lanes_of(b.getFloatTy(), int_type));
}

// x limited to [lo, hi]; NaN passes (its comparisons are false).
llvm::Value* clamp(llvm::IRBuilder<>& b, llvm::Value* x, double lo, double hi) {
  x = b.CreateSelect(b.CreateFCmpOLT(x, constant(x, lo)), constant(x, lo), x);
  return b.CreateSelect(b.CreateFCmpOGT(x, constant(x, hi)), constant(x, hi), x);
}

}  // namespace

llvm::Value* emit_exp_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // Past these, e^x is below the smallest subnormal or above float's largest value; n stays in
  // [-150, 128], so each half of 2^n is a normal float.
  llvm::Value* xc = clamp(b, x, -104.0, 89.0);
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::rint, b.CreateFMul(xc, constant(x, 1.4426950408889634)));
  // ln 2 = 0.693359375 - 2.12194440e-4: the first part has few bits, so n times it is exact.
  llvm::Value* r = mul_add(b, b.CreateFNeg(n), constant(x, 0.693359375), xc);
  r = mul_add(b, b.CreateFNeg(n), constant(x, -2.12194440e-4), r);
  llvm::Value* p = horner(b, r, {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040});
  llvm::Type* int_type = with_lanes_of(b.getInt32Ty(), x->getType());
  llvm::Value* ni = b.CreateFPToSI(n, int_type);
  llvm::Value* half = b.CreateAShr(ni, llvm::ConstantInt::get(int_type, 1));
  llvm::Value* scaled =
      b.CreateFMul(b.CreateFMul(p, power_of_two(b, half)), power_of_two(b, b.CreateSub(ni, half)));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, scaled);  // NaN in, NaN out (fptosi of NaN is poison)
}

llvm::Value* emit_tanh_f32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // |x| < 0.3: the odd Taylor series, x + x·z·(−1/3 + z·(2/15 + ...)), z = x².
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* tail = horner(b, z, {-1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835, -1382.0 / 155925});
  llvm::Value* small = mul_add(b, b.CreateFMul(x, z), tail, x);
  // Otherwise 1 − 2 / (e^(2|x|) + 1); e^(2|x|) = inf gives 1.
  llvm::Value* e = emit_exp_f32(b, b.CreateFAdd(ax, ax));
  llvm::Value* one = constant(x, 1.0);
  llvm::Value* large = b.CreateFSub(one, b.CreateFDiv(constant(x, 2.0), b.CreateFAdd(e, one)));
  // NaN fails the comparison and takes `large`, which is NaN. The sign of x, also on -0 (the
  // series' sum of -0 and +0 is +0).
  llvm::Value* magnitude = b.CreateSelect(b.CreateFCmpOLT(ax, constant(x, 0.3)), small, large);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
}

}  // namespace tessel::llvm_cpu
