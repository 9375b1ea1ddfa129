// LLVM's standard optimization pipeline (new pass manager) over a generated module, with the
// target's cost model so the loop vectorizer and unroller pick widths this CPU runs well.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace tessel::llvm_cpu {

// Runs the -O<level> module pipeline (level 0..3) in place.
void optimize_module(llvm::Module& module, llvm::TargetMachine& target, int level);

}  // namespace tessel::llvm_cpu
