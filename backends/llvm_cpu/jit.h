// JIT compilation of a lowered function into a callable kernel with ORC's LLJIT. Each kernel owns
// its own JIT (and so its own LLVM context), so kernels compile concurrently from several threads
// and are freed independently.
#pragma once
#include <memory>

#include "backends/llvm_cpu/llvm_cpu.h"

namespace tessel::llvm_cpu {

std::unique_ptr<CompiledFunction> jit_compile(const LoweredFunc& func, const LlvmCpuOptions& options);

}  // namespace tessel::llvm_cpu
