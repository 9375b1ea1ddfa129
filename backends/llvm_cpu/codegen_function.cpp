// CodeGen's function-level parts: the module and its two entries, LLVM types of IR types,
// per-function state, and allocas in the entry block.
#include <cctype>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/llvm_cpu/codegen.h"
#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

void verify_or_throw(const llvm::Module& module) {
  std::string message;
  llvm::raw_string_ostream out(message);
  if (llvm::verifyModule(module, &out)) {
    throw InternalError("LLVM CPU back end produced invalid IR for module '" + module.getName().str() +
                        "': " + out.str());
  }
}

}  // namespace

std::unique_ptr<llvm::Module> generate_module(const LoweredFunc& func, llvm::LLVMContext& context,
                                              const llvm::DataLayout& layout, const CodegenOptions& options) {
  auto module = std::make_unique<llvm::Module>(func.name, context);
  module->setTargetTriple(options.target.triple);
  module->setDataLayout(layout);
  CodeGen(*module, options).generate(func);
  verify_or_throw(*module);
  return module;
}

std::string packed_entry_name(const std::string& name) { return name + "_packed"; }

llvm::Type* value_type(llvm::LLVMContext& context, DataType t) {
  llvm::Type* scalar = nullptr;
  switch (t.code) {
    case TypeCode::Int:
    case TypeCode::UInt: scalar = llvm::Type::getIntNTy(context, t.bits); break;
    case TypeCode::Handle: scalar = llvm::Type::getInt8PtrTy(context); break;
    case TypeCode::Float:
      if (t.bits == 16) scalar = llvm::Type::getHalfTy(context);
      else if (t.bits == 32) scalar = llvm::Type::getFloatTy(context);
      else if (t.bits == 64) scalar = llvm::Type::getDoubleTy(context);
      else user_error("LLVM CPU back end: unsupported float width ", int(t.bits), " (use 16, 32 or 64)");
      break;
  }
  return t.lanes > 1 ? llvm::FixedVectorType::get(scalar, t.lanes) : scalar;
}

llvm::Type* memory_type(llvm::LLVMContext& context, DataType t) {
  return value_type(context, t.is_bool() ? DataType{TypeCode::UInt, 8, t.lanes} : t);
}

CodeGen::CodeGen(llvm::Module& module, const CodegenOptions& options)
    : context_(module.getContext()), module_(module), builder_(module.getContext()), options_(options) {
  llvm::FastMathFlags flags;
  if (options.fast_math) flags.setFast();
  flags.setAllowContract(true);
  builder_.setFastMathFlags(flags);
}

void CodeGen::generate(const LoweredFunc& func) {
  if (!is_c_identifier(func.name))
    user_error("function name '", func.name, "' is not a C identifier; the LLVM CPU back end exports it as a symbol");
  func_name_ = func.name;
  llvm::Function* entry = declare_entry(func);
  begin_function(entry);
  auto arg = entry->arg_begin();
  for (const FuncArg& a : func.args) state_.buffers[a.buffer.get()] = &*arg++;
  if (func.body.defined()) emit(func.body);
  builder_.CreateRetVoid();
  emit_packed_entry(func, entry);
}

llvm::Function* CodeGen::declare_entry(const LoweredFunc& func) {
  std::vector<llvm::Type*> params;
  for (const FuncArg& a : func.args) params.push_back(memory_type(context_, a.buffer.dtype().element())->getPointerTo());
  auto* type = llvm::FunctionType::get(builder_.getVoidTy(), params, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, func.name, module_);
  set_function_attributes(*fn, options_.target);
  for (size_t i = 0; i < func.args.size(); ++i) {
    fn->getArg(i)->setName(func.args[i].buffer.name());
    // Lowering gives every argument its own tensor, so arguments never overlap.
    fn->addParamAttr(i, llvm::Attribute::NoAlias);
    fn->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  return fn;
}

void CodeGen::emit_packed_entry(const LoweredFunc& func, llvm::Function* entry) {
  llvm::Type* ptr = builder_.getInt8PtrTy();
  auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {ptr->getPointerTo()}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, packed_entry_name(func.name), module_);
  set_function_attributes(*fn, options_.target);
  begin_function(fn);
  std::vector<llvm::Value*> args;
  for (unsigned i = 0; i < func.args.size(); ++i) {
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(ptr, fn->getArg(0), i);
    llvm::Value* raw = builder_.CreateLoad(ptr, slot);
    args.push_back(builder_.CreateBitCast(raw, entry->getArg(i)->getType()));
  }
  builder_.CreateCall(entry, args);
  builder_.CreateRetVoid();
}

void CodeGen::begin_function(llvm::Function* fn) {
  state_ = FunctionState{};
  state_.function = fn;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", fn));
}

llvm::AllocaInst* CodeGen::entry_alloca(llvm::Type* type, uint64_t count, uint64_t align) {
  llvm::BasicBlock& entry = state_.function->getEntryBlock();
  llvm::IRBuilder<> at_entry(&entry, entry.begin());
  llvm::AllocaInst* slot = at_entry.CreateAlloca(type, at_entry.getInt64(count));
  slot->setAlignment(llvm::Align(align));
  return slot;
}

std::string CodeGen::fresh_name(const std::string& suffix) {
  return func_name_ + "_" + suffix + std::to_string(name_counter_++);
}

CodeGen::FunctionState CodeGen::save_state() const {
  FunctionState saved = state_;
  saved.block = builder_.GetInsertBlock();
  return saved;
}

void CodeGen::restore_state(FunctionState state) {
  state_ = std::move(state);
  builder_.SetInsertPoint(state_.block);
}

llvm::Value* CodeGen::lookup_var(const VarNode* var) const {
  auto it = state_.vars.find(var);
  if (it == state_.vars.end())
    user_error("variable '", var->name, "' is used in function '", func_name_,
               "' outside any loop, let or argument defining it; the lowered IR is malformed");
  return it->second;
}

void CodeGen::bind_var(const Var& var, llvm::Value* value, bool nonneg) {
  value->setName(var.name());
  auto* node = static_cast<const VarNode*>(var.get());
  state_.vars[node] = value;
  if (nonneg)
    nonneg_vars_.insert(node);
  else
    nonneg_vars_.erase(node);
}

void CodeGen::unbind_var(const Var& var) {
  auto* node = static_cast<const VarNode*>(var.get());
  state_.vars.erase(node);
  nonneg_vars_.erase(node);
}

}  // namespace tessel::llvm_cpu
