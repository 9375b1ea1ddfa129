// CodeGen for intrinsics (ir/intrinsic.h): the pure math calls inside expressions, and the Evaluate
// statements that run a call for its effect: the prefetches (llvm.prefetch) and fill (a store loop LLVM
// turns into memset or vector stores). Any other intrinsic is refused.
#include <llvm/IR/Intrinsics.h>

#include "backends/cpu_contract.h"
#include "backends/llvm_cpu/codegen.h"
#include "backends/llvm_cpu/float_math.h"
#include "support/error.h"

namespace tessel::llvm_cpu {

namespace {

constexpr const char* kImplemented =
    "exp, log, sqrt, fabs, floor, ceil, round, trunc, tanh, sigmoid, prefetch, prefetch_l2 and fill";

}  // namespace

void CodeGen::visit_node(const Call* op) {
  static const std::unordered_map<std::string, llvm::Intrinsic::ID> unary = {
      {"log", llvm::Intrinsic::log},     {"sqrt", llvm::Intrinsic::sqrt},
      {"fabs", llvm::Intrinsic::fabs},   {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
      {"round", llvm::Intrinsic::round}, {"trunc", llvm::Intrinsic::trunc}};
  TESSEL_CHECK(!op->intrinsic->is_statement(), "statement intrinsic ", op->name, " inside an expression");
  if (!op->intrinsic->math) refuse_intrinsic(*op->intrinsic, "llvm_cpu", kImplemented);
  llvm::Value* x = emit(op->args[0]);
  // float32 exp and tanh inline (float_math.h); LLVM would call libm once per vector lane.
  bool f32 = op->type.is_float() && op->type.bits == 32;
  auto exp = [&](llvm::Value* v) {
    return f32 ? emit_exp_f32(builder_, v) : builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, v);
  };
  if (op->name == "exp") {
    value_ = exp(x);
  } else if (auto it = unary.find(op->name); it != unary.end()) {
    value_ = builder_.CreateUnaryIntrinsic(it->second, x);
  } else if (op->name == "tanh") {
    value_ = f32 ? emit_tanh_f32(builder_, x) : emit_libm_lanewise("tanh", op->type, x);
  } else if (op->name == "sigmoid") {
    llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
    value_ = builder_.CreateFDiv(one, builder_.CreateFAdd(one, exp(builder_.CreateFNeg(x))));
  } else {
    refuse_intrinsic(*op->intrinsic, "llvm_cpu", kImplemented);
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

void CodeGen::visit_node(const Evaluate* op) {
  const Intrinsic* intrinsic = statement_call(op->value);
  if (!intrinsic) return;  // no effect
  auto* call = op->value.as<Call>();
  if (is_prefetch(intrinsic->name)) return emit_prefetch(call);
  if (intrinsic->name == "fill") return emit_fill(call);
  refuse_intrinsic(*intrinsic, "llvm_cpu", kImplemented);
}

llvm::Value* CodeGen::address_of(const Expr& address) {
  auto* element = address.as<Load>();
  TESSEL_CHECK(element, "address argument is not a load");
  return element_pointer(element->buffer, emit_index(element->index));
}

void CodeGen::emit_prefetch(const Call* op) {
  llvm::Value* pointer = builder_.CreateBitCast(address_of(op->args[0]), builder_.getInt8PtrTy());
  llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {pointer->getType()});
  // a read, into the caches prefetch_locality says, of data
  builder_.CreateCall(prefetch, {pointer, builder_.getInt32(0), builder_.getInt32(prefetch_locality(op->name)),
                                 builder_.getInt32(1)});
}

void CodeGen::emit_fill(const Call* op) {
  DataType element = op->args[1].type();
  llvm::Value* first = address_of(op->args[0]);
  llvm::Value* value = emit(op->args[1]);
  if (element.is_bool()) value = builder_.CreateZExt(value, memory_type(context_, element));
  llvm::Value* count = emit_cast(emit_index(op->args[2]), op->args[2].type(), DataType::int64());
  llvm::Type* memory = memory_type(context_, element);
  emit_loop("fill", builder_.getInt64(0), count, [&](llvm::Value* k) {
    llvm::Value* pointer = builder_.CreateInBoundsGEP(memory, first, k);
    builder_.CreateAlignedStore(value, pointer, llvm::Align(element.bytes()));
  });
}

}  // namespace tessel::llvm_cpu
