// Modules of the LLVM CPU back end as relocatable object code: one position-independent ELF object
// per function, the first also holding the module's metadata. In this process the objects are
// JIT-linked (ORC's LLJIT) on the first function lookup; exported, they are linked by the system
// linker into one shared library. Both run the same machine code, so what the tuner measures in
// the runner is exactly what an exported module runs.
#pragma once
#include <string>
#include <vector>

#include "backends/llvm_cpu/llvm_cpu.h"
#include "runtime/module.h"

namespace tessel::llvm_cpu {

// The module of `functions` (distinct names) for options.target: code generation, optimization
// and object emission, nothing linked yet; functions compile in parallel, up to one per core.
// Throws UserError for IR the back end cannot generate (the first such function's).
Module build_module(const std::vector<BuildInput>& functions, const LlvmCpuOptions& options);

// Relocatable, position-independent object code of `func`; with a non-empty `module_info`, the
// object also defines the metadata symbol (runtime/module.h) holding that text.
std::string emit_object(const LoweredFunc& func, const LlvmCpuOptions& options, const std::string& module_info = "");

// Links object files (their bytes) into a shared library at `path` with the system linker, `ld`,
// through a temporary file renamed into place. Undefined symbols (tessel_parallel_for, libc, libm) stay
// for the loading process to provide. Throws UserError naming the path and the linker's output.
void link_shared_library(const std::vector<std::string>& objects, const std::string& path);

}  // namespace tessel::llvm_cpu
