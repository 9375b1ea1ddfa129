// CodeGen for signed integer Div and Mod, which have floor semantics (ir/expr.h). Index arithmetic
// is full of them, so the cheap cases matter: a non-negative dividend over a positive constant is
// plain unsigned division (a shift or a mask for powers of two); a positive constant divisor needs
// one sign fix-up; only the general case pays for two, and for the check of a -1 divisor.
#include "backends/llvm_cpu/codegen.h"

namespace tessel::llvm_cpu {

// A conservative fact: true only if e >= 0 at every evaluation.
bool CodeGen::known_nonneg(const Expr& e) const {
  if (e.type().is_uint()) return true;
  if (const int64_t* c = as_const_int(e)) return *c >= 0;
  if (auto* v = e.as<VarNode>()) return nonneg_vars_.count(v) > 0;
  if (auto* op = e.as<Add>()) return known_nonneg(op->a) && known_nonneg(op->b);
  if (auto* op = e.as<Mul>()) return known_nonneg(op->a) && known_nonneg(op->b);
  if (auto* op = e.as<Div>()) return known_nonneg(op->a) && known_positive_constant(op->b);
  if (auto* op = e.as<Mod>()) return known_positive_constant(op->b);
  if (auto* op = e.as<Min>()) return known_nonneg(op->a) && known_nonneg(op->b);
  if (auto* op = e.as<Max>()) return known_nonneg(op->a) || known_nonneg(op->b);
  if (auto* op = e.as<Ramp>()) return known_nonneg(op->base) && known_nonneg(op->stride);
  if (auto* op = e.as<Broadcast>()) return known_nonneg(op->value);
  if (auto* op = e.as<Cast>()) return op->value.type().is_index() && known_nonneg(op->value);
  return false;
}

bool CodeGen::known_positive_constant(const Expr& e) const {
  if (auto* b = e.as<Broadcast>()) return known_positive_constant(b->value);
  const int64_t* c = as_const_int(e);
  return c && *c > 0;
}

// A 32-bit index's sums and products are widened term by term rather than sign-extending their
// result (they never overflow: index arithmetic, above), so LLVM folds the constant terms into the
// addressing mode: a convolution's broadcasts become `vbroadcastss 32(%rax,%r15,4)` instead of an
// lea, a movslq and the load (C12's kernel 31% shorter; no faster on Zen 3, which hid them).
llvm::Value* CodeGen::emit_offset(const Expr& e) {
  DataType t = e.type();
  llvm::Type* i64 = llvm::Type::getInt64Ty(context_);
  if (t.is_vector() || !t.is_int()) return emit_index(e);
  if (const int64_t* c = as_const_int(e)) return llvm::ConstantInt::getSigned(i64, *c);
  if (auto* op = e.as<Add>()) return builder_.CreateAdd(emit_offset(op->a), emit_offset(op->b), "", false, true);
  if (auto* op = e.as<Sub>()) return builder_.CreateSub(emit_offset(op->a), emit_offset(op->b), "", false, true);
  if (auto* op = e.as<Mul>()) return builder_.CreateMul(emit_offset(op->a), emit_offset(op->b), "", false, true);
  llvm::Value* v = emit_index(e);
  return t.bits < 64 ? builder_.CreateSExt(v, i64) : v;
}

llvm::Value* CodeGen::emit_floor_div_mod(NodeKind kind, const Expr& a, const Expr& b) {
  bool is_div = kind == NodeKind::Div;
  int lanes = std::max(a.type().lanes, b.type().lanes);
  llvm::Value* x = splat_to(emit(a), lanes);
  llvm::Value* y = splat_to(emit(b), lanes);
  bool positive_divisor = known_positive_constant(b);
  // with both sides non-negative, truncation is floor (a zero divisor is undefined either way)
  if (known_nonneg(a) && (positive_divisor || known_nonneg(b)))
    return is_div ? builder_.CreateUDiv(x, y) : builder_.CreateURem(x, y);
  llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
  if (!positive_divisor) {
    // x / -1 wraps (INT_MIN / -1 = INT_MIN) and x % -1 is 0, where sdiv and srem would trap:
    // divide by 1 instead (floor_mod(x, 1) is 0 already) and negate the quotient.
    llvm::Value* minus_one = builder_.CreateICmpEQ(y, llvm::Constant::getAllOnesValue(y->getType()));
    llvm::Value* safe_y = builder_.CreateSelect(minus_one, llvm::ConstantInt::get(y->getType(), 1), y);
    llvm::Value* r = floor_div_mod_by(is_div, x, safe_y, false);
    return is_div ? builder_.CreateSelect(minus_one, builder_.CreateSub(zero, x), r) : r;
  }
  return floor_div_mod_by(is_div, x, y, true);
}

// Floor division or modulo from truncating sdiv/srem, for a divisor that is not -1.
llvm::Value* CodeGen::floor_div_mod_by(bool is_div, llvm::Value* x, llvm::Value* y, bool positive_divisor) {
  llvm::Value* r = builder_.CreateSRem(x, y);
  llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
  // truncation rounds toward zero; floor differs exactly when the remainder's sign opposes y's
  llvm::Value* differs = positive_divisor
                             ? builder_.CreateICmpSLT(r, zero)
                             : builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                                                  builder_.CreateICmpSLT(builder_.CreateXor(r, y), zero));
  if (!is_div) return builder_.CreateSelect(differs, builder_.CreateAdd(r, y), r);
  return builder_.CreateSub(builder_.CreateSDiv(x, y), builder_.CreateZExt(differs, x->getType()));
}

}  // namespace tessel::llvm_cpu
