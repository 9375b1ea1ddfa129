// The host CPU as an LLVM target: triple, CPU name and feature list, and TargetMachines for it.
//
// LLVM 14 does not recognise recent CPUs such as AMD Zen 5 (its host-CPU query answers "generic"),
// so the CPU name is chosen from the features the CPU reports: an AVX-512 CPU gets an AVX-512 CPU
// model, and the exact host feature list is passed on top, so nothing the CPU has is left unused.
#pragma once
#include <memory>
#include <string>

namespace llvm {
class Function;
class TargetMachine;
namespace orc {
class JITTargetMachineBuilder;
}
}  // namespace llvm

namespace tessel::llvm_cpu {

struct HostTarget {
  std::string triple;
  std::string cpu;       // e.g. "icelake-server" on an AVX-512 CPU LLVM does not know
  std::string features;  // "+avx512f,+fma,-amx-tile,..."
  int vector_bits;       // widest vector register: 512, 256 or 128
};

// The host target, computed once; also initializes LLVM's native target (once, thread-safely).
const HostTarget& host_target();

// A JIT target-machine builder for the host, at LLVM's most aggressive code-generation level,
// with fused multiply-add contraction allowed.
llvm::orc::JITTargetMachineBuilder host_jit_target_builder();

// A TargetMachine for the host; `pic` selects position-independent code (for shared libraries).
std::unique_ptr<llvm::TargetMachine> create_host_target_machine(bool pic);

// Marks a generated function for the host: CPU, features, full-width vectors (so 512-bit
// operations are not split into halves), no unwinding.
void set_host_function_attributes(llvm::Function& fn);

}  // namespace tessel::llvm_cpu
