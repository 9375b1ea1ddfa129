// CodeGen for expressions: constants, variables, arithmetic, comparisons, logic, select, casts,
// math intrinsics and let. Float operations carry the builder's fast-math flags (at least
// `contract`, so a*b+c becomes an FMA).
#include <llvm/IR/Intrinsics.h>

#include "backends/llvm_cpu/codegen.h"
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
  // Index arithmetic (32/64-bit) never wraps in lowered code, and saying so lets LLVM widen
  // induction variables and vectorize; narrow integers (quantized data) may wrap on purpose.
  bool nsw = t.is_int() && t.bits >= 32;
  switch (kind) {
    case NodeKind::Add: return fp ? builder_.CreateFAdd(x, y) : builder_.CreateAdd(x, y, "", false, nsw);
    case NodeKind::Sub: return fp ? builder_.CreateFSub(x, y) : builder_.CreateSub(x, y, "", false, nsw);
    case NodeKind::Mul: return fp ? builder_.CreateFMul(x, y) : builder_.CreateMul(x, y, "", false, nsw);
    case NodeKind::Div:
      if (fp) return builder_.CreateFDiv(x, y);
      return builder_.CreateUDiv(x, y);  // unsigned; signed integers take emit_floor_div
    case NodeKind::Mod:
      if (!fp) return builder_.CreateURem(x, y);
      // floor modulo for floats: x - floor(x / y) * y, matching the integer semantics
      return builder_.CreateFSub(x, builder_.CreateFMul(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                                                                      builder_.CreateFDiv(x, y)), y));
    case NodeKind::Min:
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
  llvm::Value* cond = emit(op->cond);
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

void CodeGen::visit_node(const Call* op) {
  static const std::unordered_map<std::string, llvm::Intrinsic::ID> unary = {
      {"exp", llvm::Intrinsic::exp},     {"log", llvm::Intrinsic::log},     {"sqrt", llvm::Intrinsic::sqrt},
      {"fabs", llvm::Intrinsic::fabs},   {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
      {"round", llvm::Intrinsic::round}, {"trunc", llvm::Intrinsic::trunc}};
  if (op->args.size() != 1 || !op->type.is_float())
    user_error("intrinsic '", op->name, "' in function '", func_name_, "' must take one float argument");
  llvm::Value* x = emit(op->args[0]);
  if (auto it = unary.find(op->name); it != unary.end()) {
    value_ = builder_.CreateUnaryIntrinsic(it->second, x);
  } else if (op->name == "tanh") {
    value_ = emit_libm_lanewise(op->type.bits == 64 ? "tanh" : "tanhf", op->type, x);
  } else if (op->name == "sigmoid") {
    llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
    llvm::Value* e = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, builder_.CreateFNeg(x));
    value_ = builder_.CreateFDiv(one, builder_.CreateFAdd(one, e));
  } else {
    user_error("unknown intrinsic '", op->name, "' in function '", func_name_,
               "'; the LLVM CPU back end knows exp, log, sqrt, fabs, floor, ceil, round, trunc, tanh, sigmoid");
  }
}

// libm has no vector entry points LLVM 14 can target by default, so vectors call it lane by lane.
llvm::Value* CodeGen::emit_libm_lanewise(const std::string& scalar_name, DataType t, llvm::Value* x) {
  llvm::Type* scalar = value_type(context_, t.element());
  llvm::FunctionCallee fn = module_.getOrInsertFunction(scalar_name, scalar, scalar);
  if (auto* decl = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    decl->setDoesNotThrow();
    decl->setDoesNotAccessMemory();
  }
  if (t.lanes == 1) return builder_.CreateCall(fn, {x});
  llvm::Value* result = llvm::UndefValue::get(x->getType());
  for (int i = 0; i < t.lanes; ++i) {
    llvm::Value* lane = builder_.CreateCall(fn, {builder_.CreateExtractElement(x, i)});
    result = builder_.CreateInsertElement(result, lane, i);
  }
  return result;
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
