// The new-pass-manager O-level pipeline for generated modules.
#include "backends/llvm_cpu/optimize.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>

#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

llvm::OptimizationLevel optimization_level(int level) {
  switch (level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    case 3: return llvm::OptimizationLevel::O3;
  }
  user_error("LLVM optimization level must be 0, 1, 2 or 3, got ", level);
}

// LLVM 14's loop vectorizer may put two loads of one address into an interleaved group although a
// store to that address lies between them in the loop body, and so read the value from before the
// store (the bug class of llvm/llvm-project#63602). A local tile that an unrolled 3x3 window
// accumulates into element by element is that pattern: random_schedules_test found a depthwise
// schedule computing wrong results. Tessel vectorizes its own inner loops; only the scalar loops
// LLVM vectorizes on its own lose the groups, and no kernel of ResNet-18 or MobileNet-V2 changed.
// The switch is LLVM's process-wide option, as on its command line. A later LLVM may drop or rename
// it; then nothing is switched, and that test's written-out schedule tells whether it is needed.
void avoid_interleaved_group_miscompile() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& options = llvm::cl::getRegisteredOptions();
    auto option = options.find("enable-interleaved-mem-accesses");
    if (option == options.end()) return;
    bool failed = option->second->addOccurrence(0, option->first(), "false");
    TESSEL_CHECK(!failed, "LLVM refused enable-interleaved-mem-accesses=false");
  });
}

}  // namespace

void optimize_module(llvm::Module& module, llvm::TargetMachine& target, int level) {
  avoid_interleaved_group_miscompile();
  llvm::OptimizationLevel opt = optimization_level(level);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  tuning.LoopUnrolling = level >= 1;

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&target, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);

  llvm::ModulePassManager pipeline = level == 0 ? builder.buildO0DefaultPipeline(opt)
                                                : builder.buildPerModuleDefaultPipeline(opt);
  pipeline.run(module, modules);
}

}  // namespace tessel::llvm_cpu
