// CodeGen for control flow and scoping statements: serial loops, if/else, sequences, let,
// attributes (hints are skipped, others refused), and the statements that must not reach a CPU
// back end (pre-flattening ones, loops bound to GPU threads).
#include <llvm/IR/MDBuilder.h>

#include "backends/cpu_contract.h"
#include "backends/llvm_cpu/codegen.h"
#include "ir/tensor.h"
#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

// Loop metadata asking LLVM to unroll fully (ForKind::Unrolled) or to vectorize (Vectorized).
llvm::MDNode* loop_hint(llvm::LLVMContext& context, ForKind kind) {
  const char* hint = kind == ForKind::Unrolled ? "llvm.loop.unroll.full" : "llvm.loop.vectorize.enable";
  std::vector<llvm::Metadata*> ops = {nullptr, nullptr};
  std::vector<llvm::Metadata*> property = {llvm::MDString::get(context, hint)};
  if (kind == ForKind::Vectorized)
    property.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(context)));
  ops[1] = llvm::MDNode::get(context, property);
  llvm::MDNode* loop_id = llvm::MDNode::getDistinct(context, ops);
  loop_id->replaceOperandWith(0, loop_id);
  return loop_id;
}

}  // namespace

void CodeGen::emit(const Stmt& s) {
  TESSEL_CHECK(s.defined(), "code generation of an undefined statement in ", func_name_);
  visit(s);
}

void CodeGen::visit_node(const For* op) {
  if (op->kind == ForKind::ThreadBinding) refuse_thread_binding(*op, "llvm_cpu");
  if (op->kind == ForKind::Parallel && !state_.in_parallel) return emit_parallel_for(op);
  emit_serial_for(op);  // a parallel loop nested in another runs serially: the outer one has the threads
}

void CodeGen::emit_serial_for(const For* op) {
  DataType t = op->var.type();
  llvm::Value* lo = emit_cast(emit_index(op->min), op->min.type(), t);
  llvm::Value* hi = builder_.CreateAdd(lo, emit_cast(emit_index(op->extent), op->extent.type(), t), "", false, true);
  llvm::BranchInst* latch = emit_loop(op->var.name(), lo, hi, [&](llvm::Value* i) {
    bind_var(op->var, i, known_nonneg(op->min));
    emit(op->body);
  });
  if (op->kind == ForKind::Unrolled || op->kind == ForKind::Vectorized)
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop_hint(context_, op->kind));
  unbind_var(op->var);
}

llvm::BranchInst* CodeGen::emit_loop(const std::string& name, llvm::Value* lo, llvm::Value* hi,
                                     const std::function<void(llvm::Value* i)>& body) {
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context_, "for_" + name, state_.function);
  auto* body_block = llvm::BasicBlock::Create(context_, "body_" + name, state_.function);
  auto* exit = llvm::BasicBlock::Create(context_, "end_" + name, state_.function);
  builder_.CreateBr(header);

  builder_.SetInsertPoint(header);
  llvm::PHINode* i = builder_.CreatePHI(lo->getType(), 2);
  i->addIncoming(lo, preheader);
  builder_.CreateCondBr(builder_.CreateICmpSLT(i, hi), body_block, exit);

  builder_.SetInsertPoint(body_block);
  body(i);
  llvm::Value* next = builder_.CreateAdd(i, llvm::ConstantInt::get(i->getType(), 1), "", false, true);
  i->addIncoming(next, builder_.GetInsertBlock());
  llvm::BranchInst* latch = builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
  return latch;
}

void CodeGen::visit_node(const IfThenElse* op) {
  if (op->cond.type().is_vector())
    user_error("if-condition of type ", op->cond.type().str(), " in function '", func_name_, "' must be a scalar");
  llvm::Value* cond = emit_condition(op->cond);
  auto* then_block = llvm::BasicBlock::Create(context_, "then", state_.function);
  auto* merge = llvm::BasicBlock::Create(context_, "endif", state_.function);
  auto* else_block = op->else_case.defined() ? llvm::BasicBlock::Create(context_, "else", state_.function) : merge;
  builder_.CreateCondBr(cond, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  emit(op->then_case);
  builder_.CreateBr(merge);
  if (op->else_case.defined()) {
    builder_.SetInsertPoint(else_block);
    emit(op->else_case);
    builder_.CreateBr(merge);
  }
  builder_.SetInsertPoint(merge);
}

void CodeGen::visit_node(const Seq* op) {
  for (const Stmt& s : op->stmts) emit(s);
}

void CodeGen::visit_node(const LetStmt* op) {
  bind_var(op->var, emit(op->value), known_nonneg(op->value));
  emit(op->body);
  unbind_var(op->var);
}

void CodeGen::visit_node(const AttrStmt* op) {
  check_cpu_attr(*op, "llvm_cpu");
  if (op->body.defined()) emit(op->body);
}

void CodeGen::visit_node(const Provide* op) {
  user_error("function '", func_name_, "' still writes tensor '", op->op->name,
             "' with Provide; flatten storage (passes/lower) before code generation");
}

void CodeGen::visit_node(const Realize* op) {
  user_error("function '", func_name_, "' still realizes tensor '", op->op->name,
             "'; flatten storage (passes/lower) before code generation");
}

}  // namespace tessel::llvm_cpu
