// A CPU target (target/target.h) as LLVM sees it: triple, CPU name and feature list, and the
// TargetMachines and function attributes made from them.
//
// The host's feature list is the starting point, so nothing the CPU has is left unused; a target
// whose ISA is below the host's (an ISA ceiling, e.g. AVX2 on an AVX-512 machine) turns the
// features above its level off, and one above the host's (cross-compilation, never run here) takes
// a representative CPU of its level. LLVM 14 does not recognise recent CPUs such as AMD Zen 5 (its
// host-CPU query answers "generic"), so an AVX-512 host LLVM does not know gets an AVX-512 CPU model.
#pragma once
#include <memory>
#include <string>

#include "target/target.h"

namespace llvm {
class Function;
class TargetMachine;
namespace orc {
class JITTargetMachineBuilder;
}
}  // namespace llvm

namespace tessel::llvm_cpu {

struct LlvmCpuTarget {
  std::string triple;
  std::string cpu;       // e.g. "icelake-server" on an AVX-512 CPU LLVM does not know
  std::string features;  // "+avx2,+fma,-avx512f,..."
  int vector_bits;       // widest vector register of the target's ISA: 512, 256 or 128
};

// The LLVM description of a CPU target; also initializes LLVM's native target (once, thread-safely).
LlvmCpuTarget llvm_target_for(const Target& target);

// A JIT target-machine builder at LLVM's most aggressive code-generation level, with fused
// multiply-add contraction allowed.
llvm::orc::JITTargetMachineBuilder jit_target_builder(const LlvmCpuTarget& target);

// A TargetMachine; `pic` selects position-independent code (for shared libraries).
std::unique_ptr<llvm::TargetMachine> create_target_machine(const LlvmCpuTarget& target, bool pic);

// Marks a generated function for the target: CPU, features, full-width vectors (so 512-bit
// operations are not split into halves), no unwinding.
void set_function_attributes(llvm::Function& fn, const LlvmCpuTarget& target);

}  // namespace tessel::llvm_cpu
