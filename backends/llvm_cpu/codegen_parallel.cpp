// CodeGen for parallel loops: the loop is outlined into a function the runtime thread pool calls
// once per thread with that thread's chunk of iterations (runtime/thread_pool.h,
// tessel_parallel_for).
//
// The loop's free variables and buffers travel in a closure struct on the caller's stack. The task
// function unpacks it and calls the outlined body, which takes them as parameters marked noalias
// and is always inlined into the task: inlining turns the noalias parameters into alias scopes,
// so the body optimizes as well as it would in the entry function. Allocations inside the body
// land in the task's own frame, private to each thread.
#include <algorithm>

#include "backends/llvm_cpu/codegen.h"
#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

// Every variable and buffer a statement mentions (bound inside it or not).
class MentionCollector : public IRVisitor {
 public:
  std::vector<const VarNode*> vars;
  std::vector<const BufferNode*> buffers;

 protected:
  void visit_node(const VarNode* op) override { add(vars, op); }
  void visit_node(const Load* op) override {
    add(buffers, op->buffer.get());
    IRVisitor::visit_node(op);
  }
  void visit_node(const Store* op) override {
    add(buffers, op->buffer.get());
    IRVisitor::visit_node(op);
  }

 private:
  template <typename T>
  static void add(std::vector<const T*>& seen, const T* node) {
    if (std::find(seen.begin(), seen.end(), node) == seen.end()) seen.push_back(node);
  }
};

}  // namespace

void CodeGen::emit_parallel_for(const For* op) {
  MentionCollector mentioned;
  mentioned.visit(op->body);
  // Only what is bound here is free in the body; the rest the body binds itself.
  std::vector<const VarNode*> vars;
  std::vector<const BufferNode*> buffers;
  for (const VarNode* v : mentioned.vars)
    if (state_.vars.count(v)) vars.push_back(v);
  for (const BufferNode* b : mentioned.buffers)
    if (state_.buffers.count(b)) buffers.push_back(b);

  DataType t = op->var.type();
  std::vector<llvm::Value*> fields = {emit_cast(emit_index(op->min), op->min.type(), t)};
  for (const VarNode* v : vars) fields.push_back(state_.vars.at(v));
  for (const BufferNode* b : buffers) fields.push_back(state_.buffers.at(b));
  std::vector<llvm::Type*> field_types;
  for (llvm::Value* f : fields) field_types.push_back(f->getType());
  llvm::Value* extent = emit_cast(emit_index(op->extent), op->extent.type(), DataType::int64());

  auto* closure_type = llvm::StructType::get(context_, field_types);
  llvm::AllocaInst* closure = entry_alloca(closure_type, 1, 8);
  for (unsigned i = 0; i < fields.size(); ++i)
    builder_.CreateStore(fields[i], builder_.CreateStructGEP(closure_type, closure, i));

  llvm::Function* body = outline_parallel_body(op, vars, buffers, field_types);
  llvm::Function* task = make_parallel_task(body, closure_type);
  llvm::Type* i8ptr = builder_.getInt8PtrTy();
  llvm::FunctionCallee pool = module_.getOrInsertFunction("tessel_parallel_for", builder_.getVoidTy(),
                                                          builder_.getInt64Ty(), task->getType(), i8ptr);
  builder_.CreateCall(pool, {extent, task, builder_.CreateBitCast(closure, i8ptr)});
}

// void body(i64 begin, i64 end, <min>, <free vars>..., <buffers noalias>...): the loop over one
// thread's chunk of iterations, compiled here so LLVM can vectorize and unroll it.
llvm::Function* CodeGen::outline_parallel_body(const For* op, const std::vector<const VarNode*>& vars,
                                               const std::vector<const BufferNode*>& buffers,
                                               const std::vector<llvm::Type*>& field_types) {
  std::vector<llvm::Type*> params = {builder_.getInt64Ty(), builder_.getInt64Ty()};
  params.insert(params.end(), field_types.begin(), field_types.end());
  auto* type = llvm::FunctionType::get(builder_.getVoidTy(), params, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, fresh_name("parallel_body"), module_);
  set_function_attributes(*fn, options_.target);
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  unsigned first_var = 3, first_buffer = first_var + vars.size();
  for (unsigned i = first_buffer; i < params.size(); ++i) fn->addParamAttr(i, llvm::Attribute::NoAlias);

  FunctionState saved = save_state();
  begin_function(fn);
  state_.in_parallel = true;
  for (unsigned i = 0; i < vars.size(); ++i) state_.vars[vars[i]] = fn->getArg(first_var + i);
  for (unsigned i = 0; i < buffers.size(); ++i) state_.buffers[buffers[i]] = fn->getArg(first_buffer + i);
  DataType t = op->var.type();
  Var begin("begin", DataType::int64()), end("end", DataType::int64()), lo("lo", t);
  bind_var(begin, fn->getArg(0), true);
  bind_var(end, fn->getArg(1), true);
  bind_var(lo, fn->getArg(2), known_nonneg(op->min));
  Stmt chunk = make_for(op->var, Expr(lo) + cast(t, begin), cast(t, Expr(end) - begin), ForKind::Serial, op->body);
  emit_serial_for(chunk.as<For>());
  builder_.CreateRetVoid();
  for (const Var& v : {begin, end, lo}) nonneg_vars_.erase(static_cast<const VarNode*>(v.get()));  // die here
  restore_state(std::move(saved));
  return fn;
}

// void task(i64 begin, i64 end, i8* closure): what the thread pool calls.
llvm::Function* CodeGen::make_parallel_task(llvm::Function* body, llvm::StructType* closure_type) {
  llvm::Type* i64 = builder_.getInt64Ty();
  auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {i64, i64, builder_.getInt8PtrTy()}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, fresh_name("parallel_task"), module_);
  set_function_attributes(*fn, options_.target);

  FunctionState saved = save_state();
  begin_function(fn);
  llvm::Value* closure = builder_.CreateBitCast(fn->getArg(2), closure_type->getPointerTo());
  std::vector<llvm::Value*> args = {fn->getArg(0), fn->getArg(1)};
  for (unsigned i = 0; i < closure_type->getNumElements(); ++i) {
    llvm::Value* slot = builder_.CreateStructGEP(closure_type, closure, i);
    args.push_back(builder_.CreateLoad(closure_type->getElementType(i), slot));
  }
  builder_.CreateCall(body, args);
  builder_.CreateRetVoid();
  restore_state(std::move(saved));
  return fn;
}

}  // namespace tessel::llvm_cpu
