// The LLVM CPU back end: compiles lowered functions for a CPU target with LLVM 14 into modules of
// object code (the "llvm_cpu" Backend plugin; JIT-linked in this process or exported as shared
// libraries: backends/llvm_cpu/object_module.h), into files (object file, shared library) and
// into text for inspection (LLVM IR, assembly).
//
// A compiled function `f` exports `void f(T0*, T1*, ...)` and `void f_packed(void** args)`; both
// take the arguments in LoweredFunc::args order. Parallel loops call tessel_parallel_for
// (runtime/thread_pool.h), so a shared library must be loaded into a process that links
// libtessel_runtime.so.
#pragma once
#include <memory>
#include <string>

#include "backends/backend.h"

namespace tessel {

struct LlvmCpuOptions {
  int opt_level = 3;       // LLVM -O level, 0..3
  bool fast_math = false;  // beyond FMA contraction (always on): reassociation, no-NaN/Inf, ...
  Target target = Target::host();  // a CPU target; its ISA may exceed the host's only for emission
};

class LlvmCpuBackend : public Backend {
 public:
  explicit LlvmCpuBackend(LlvmCpuOptions options = {}) : options_(options) {}
  std::string name() const override { return "llvm_cpu"; }
  Module build(const std::vector<BuildInput>& functions) const override;
  // Formats: "llvm" (optimized LLVM IR) and "asm" (assembly for the target, which may be one this
  // machine cannot run).
  std::string emit(const LoweredFunc& func, const std::string& format) const override;

 private:
  LlvmCpuOptions options_for_target() const;
  LlvmCpuOptions options_;
};

// Optimized LLVM IR of the function, as text.
std::string emit_llvm_ir(const LoweredFunc& func, const LlvmCpuOptions& options = {});
// Assembly of the function for options.target (AT&T syntax).
std::string emit_assembly(const LoweredFunc& func, const LlvmCpuOptions& options = {});
// A position-independent ELF object file at `path`.
void write_object_file(const LoweredFunc& func, const std::string& path, const LlvmCpuOptions& options = {});
// A shared library at `path` holding the function as a module (runtime/module.h: load_module runs
// it), linked from the object file with the system linker (`ld`).
void write_shared_library(const LoweredFunc& func, const std::string& path, const LlvmCpuOptions& options = {});

}  // namespace tessel
