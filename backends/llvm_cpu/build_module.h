// From a lowered function to an optimized LLVM module for options.target: code generation followed by
// the optimization pipeline, shared by the JIT and by file emission.
#pragma once
#include <memory>

#include "backends/llvm_cpu/llvm_cpu.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace tessel::llvm_cpu {

std::unique_ptr<llvm::Module> build_optimized_module(const LoweredFunc& func, llvm::LLVMContext& context,
                                                     llvm::TargetMachine& target, const LlvmCpuOptions& options);

}  // namespace tessel::llvm_cpu
