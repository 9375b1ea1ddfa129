// LLJIT-backed kernels. Generated code finds the thread pool entry as an absolute symbol (no
// reliance on libtessel's symbols being visible to dlsym) and libc/libm through the process.
#include "backends/llvm_cpu/jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm_cpu/build_module.h"
#include "backends/llvm_cpu/codegen.h"
#include "backends/llvm_cpu/cpu_target.h"
#include "runtime/thread_pool.h"
#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

using PackedEntry = void (*)(void* const*);

class JitFunction : public CompiledFunction {
 public:
  JitFunction(LoweredFunc func, std::unique_ptr<llvm::orc::LLJIT> jit, PackedEntry entry)
      : CompiledFunction(std::move(func)), jit_(std::move(jit)), entry_(entry) {}
  void call(void* const* args) const override { entry_(args); }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;  // owns the code entry_ points into
  PackedEntry entry_;
};

template <typename T>
T take_or_throw(llvm::Expected<T> value, const std::string& what) {
  if (!value) throw InternalError("LLVM JIT: " + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error, const std::string& what) {
  if (error) throw InternalError("LLVM JIT: " + what + ": " + llvm::toString(std::move(error)));
}

void expose_runtime(llvm::orc::LLJIT& jit) {
  llvm::orc::JITDylib& lib = jit.getMainJITDylib();
  llvm::orc::SymbolMap runtime;
  runtime[jit.mangleAndIntern("tessel_parallel_for")] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&tessel_parallel_for), llvm::JITSymbolFlags::Exported);
  check(lib.define(llvm::orc::absoluteSymbols(std::move(runtime))), "defining runtime symbols");
  lib.addGenerator(take_or_throw(
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit.getDataLayout().getGlobalPrefix()),
      "searching the process for libc symbols"));
}

}  // namespace

std::unique_ptr<CompiledFunction> jit_compile(const LoweredFunc& func, const LlvmCpuOptions& options) {
  llvm::orc::JITTargetMachineBuilder target_builder = jit_target_builder(llvm_target_for(options.target));
  std::unique_ptr<llvm::TargetMachine> target =
      take_or_throw(target_builder.createTargetMachine(), "creating the target machine");
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = build_optimized_module(func, *context, *target, options);

  auto jit = take_or_throw(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(target_builder)).create(),
                           "creating the JIT");
  expose_runtime(*jit);
  check(jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))),
        "adding the module of '" + func.name + "'");
  auto symbol = take_or_throw(jit->lookup(packed_entry_name(func.name)), "compiling '" + func.name + "'");
  auto entry = reinterpret_cast<PackedEntry>(symbol.getAddress());
  return std::make_unique<JitFunction>(func, std::move(jit), entry);
}

}  // namespace tessel::llvm_cpu
