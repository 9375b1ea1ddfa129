// Code generation plus optimization for one lowered function.
#include "backends/llvm_cpu/build_module.h"

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm_cpu/codegen.h"
#include "backends/llvm_cpu/cpu_target.h"
#include "backends/llvm_cpu/optimize.h"

namespace tessel::llvm_cpu {

std::unique_ptr<llvm::Module> build_optimized_module(const LoweredFunc& func, llvm::LLVMContext& context,
                                                     llvm::TargetMachine& target, const LlvmCpuOptions& options) {
  CodegenOptions codegen;
  codegen.fast_math = options.fast_math;
  codegen.target = llvm_target_for(options.target);
  std::unique_ptr<llvm::Module> module = generate_module(func, context, target.createDataLayout(), codegen);
  optimize_module(*module, target, options.opt_level);
  return module;
}

}  // namespace tessel::llvm_cpu
