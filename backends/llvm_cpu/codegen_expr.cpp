// CodeGen for expressions: constants, variables, arithmetic, comparisons, logic, select, casts and
// let. Float operations carry the builder's fast-math flags (at least `contract`, so a*b+c becomes
// an FMA).
#include <llvm/IR/Intrinsics.h>

#include "backends/llvm_cpu/codegen.h"
#include "ir/intrinsic.h"
#include "ir/tensor.h"
#include "support/error.h"

namespace tessel::llvm_cpu {

llvm::Value* CodeGen::emit(const Expr& e) {
  TESSEL_CHECK(e.defined(), "code generation of an undefined expression in ", func_name_);
  value_ = nullptr;
  visit(e);
  TESSEL_CHECK(value_ != nullptr, "no value generated for an expression in ", func_name_);
  return value_;
}

llvm::Value* CodeGen::emit_index(const Expr& e) {
  bool saved = index_context_;
  index_context_ = true;
  llvm::Value* v = emit(e);
  index_context_ = saved;
  return v;
}

namespace {

// Whether e reads memory (a Load, or a call that reads it).
bool reads_memory(const Expr& e) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_node(const Load*) override { found = true; }
    void visit_node(const Call* op) override {
      found |= op->intrinsic->effect != CallEffect::Pure;
      IRVisitor::visit_node(op);
    }
  } finder;
  finder.visit(e);
  return finder.found;
}

}  // namespace

llvm::Value* CodeGen::emit_condition(const Expr& cond) { return reads_memory(cond) ? emit(cond) : emit_index(cond); }

llvm::Value* CodeGen::splat_to(llvm::Value* v, int lanes) {
  if (lanes <= 1 || v->getType()->isVectorTy()) return v;
  return builder_.CreateVectorSplat(lanes, v);
}

void CodeGen::visit_node(const IntImm* op) { value_ = llvm::ConstantInt::get(value_type(context_, op->type), op->value, true); }

void CodeGen::visit_node(const FloatImm* op) { value_ = llvm::ConstantFP::get(value_type(context_, op->type), op->value); }

void CodeGen::visit_node(const VarNode* op) { value_ = lookup_var(op); }

#define TESSEL_VISIT_BINARY(T) \
  void CodeGen::visit_node(const T* op) { value_ = emit_binary(T::kKind, op->a, op->b); }
TESSEL_BINARY_NODES(TESSEL_VISIT_BINARY)
#undef TESSEL_VISIT_BINARY

llvm::Value* CodeGen::emit_binary(NodeKind kind, const Expr& a, const Expr& b) {
  if ((kind == NodeKind::Div || kind == NodeKind::Mod) && a.type().is_int()) return emit_floor_div_mod(kind, a, b);
  int lanes = std::max(a.type().lanes, b.type().lanes);
  llvm::Value* x = splat_to(emit(a), lanes);
  llvm::Value* y = splat_to(emit(b), lanes);
  DataType t = a.type().with_lanes(lanes);
  switch (kind) {
    case NodeKind::EQ: case NodeKind::NE: case NodeKind::LT:
    case NodeKind::LE: case NodeKind::GT: case NodeKind::GE:
      return emit_compare(kind, t, x, y);
    case NodeKind::And: return builder_.CreateAnd(x, y);
    case NodeKind::Or: return builder_.CreateOr(x, y);
    default: return emit_arithmetic(kind, t, x, y);
  }
}

llvm::Value* CodeGen::emit_arithmetic(NodeKind kind, DataType t, llvm::Value* x, llvm::Value* y) {
  bool fp = t.is_float();
  // Integers wrap (ir/scalar_semantics.h), but index arithmetic never does in lowered code, and
  // saying so lets LLVM widen induction variables and vectorize.
  bool nsw = index_context_ && t.is_int() && t.bits >= 32;
  switch (kind) {
    case NodeKind::Add: return fp ? builder_.CreateFAdd(x, y) : builder_.CreateAdd(x, y, "", false, nsw);
    case NodeKind::Sub: return fp ? builder_.CreateFSub(x, y) : builder_.CreateSub(x, y, "", false, nsw);
    case NodeKind::Mul: return fp ? builder_.CreateFMul(x, y) : builder_.CreateMul(x, y, "", false, nsw);
    case NodeKind::Div:
      if (fp) return builder_.CreateFDiv(x, y);
      return builder_.CreateUDiv(x, y);  // unsigned; signed integers take emit_floor_div
    case NodeKind::Mod:
      if (!fp) return builder_.CreateURem(x, y);
      // floor modulo for floats, fma(-floor(x / y), y, x): one rounding, as the interpreters compute it
      return builder_.CreateIntrinsic(
          llvm::Intrinsic::fma, {x->getType()},
          {builder_.CreateFNeg(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(x, y))), y, x});
    case NodeKind::Min:  // x < y ? x : y, so a NaN operand gives y (ir/scalar_semantics.h)
      return builder_.CreateSelect(emit_compare(NodeKind::LT, t, x, y), x, y);
    case NodeKind::Max:
      return builder_.CreateSelect(emit_compare(NodeKind::GT, t, x, y), x, y);
    default: break;
  }
  throw InternalError("emit_arithmetic: not an arithmetic node kind");
}

llvm::Value* CodeGen::emit_compare(NodeKind kind, DataType t, llvm::Value* x, llvm::Value* y) {
  using P = llvm::CmpInst::Predicate;
  auto pick = [&](P fp, P sint, P uint) { return t.is_float() ? fp : t.is_int() ? sint : uint; };
  switch (kind) {
    case NodeKind::EQ: return builder_.CreateCmp(pick(P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ), x, y);
    case NodeKind::NE: return builder_.CreateCmp(pick(P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE), x, y);
    case NodeKind::LT: return builder_.CreateCmp(pick(P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT), x, y);
    case NodeKind::LE: return builder_.CreateCmp(pick(P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE), x, y);
    case NodeKind::GT: return builder_.CreateCmp(pick(P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT), x, y);
    case NodeKind::GE: return builder_.CreateCmp(pick(P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE), x, y);
    default: break;
  }
  throw InternalError("emit_compare: not a comparison node kind");
}

void CodeGen::visit_node(const Not* op) { value_ = builder_.CreateNot(emit(op->a)); }

void CodeGen::visit_node(const Select* op) {
  int lanes = op->type.lanes;
  llvm::Value* cond = emit_condition(op->cond);
  value_ = builder_.CreateSelect(cond, splat_to(emit(op->true_value), lanes), splat_to(emit(op->false_value), lanes));
}

void CodeGen::visit_node(const Cast* op) {
  DataType from = op->value.type();
  llvm::Value* v = splat_to(emit(op->value), op->type.lanes);
  value_ = emit_cast(v, from.with_lanes(op->type.lanes), op->type);
}

llvm::Value* CodeGen::emit_cast(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  if (from.code == TypeCode::Handle || to.code == TypeCode::Handle)
    user_error("cannot cast ", from.str(), " to ", to.str(), " in function '", func_name_, "'");
  llvm::Type* target = value_type(context_, to);
  if (to.is_bool()) {
    llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
    return from.is_float() ? builder_.CreateFCmpUNE(v, zero) : builder_.CreateICmpNE(v, zero);
  }
  if (from.is_float() && to.is_float()) return builder_.CreateFPCast(v, target);
  if (from.is_float()) return to.is_int() ? builder_.CreateFPToSI(v, target) : builder_.CreateFPToUI(v, target);
  if (to.is_float()) return from.is_int() ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
  return builder_.CreateIntCast(v, target, from.is_int());
}

void CodeGen::visit_node(const Let* op) {
  bind_var(op->var, emit(op->value), known_nonneg(op->value));
  value_ = emit(op->body);
  unbind_var(op->var);
}

void CodeGen::visit_node(const TensorRead* op) {
  user_error("function '", func_name_, "' still reads tensor '", op->op->name,
             "' directly; lower the schedule (passes/lower) before code generation");
}

void CodeGen::visit_node(const Reduce*) {
  user_error("function '", func_name_, "' still contains a reduction; lower the schedule before code generation");
}

}  // namespace tessel::llvm_cpu
