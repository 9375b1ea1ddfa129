// The new-pass-manager O-level pipeline for generated modules.
#include "backends/llvm_cpu/optimize.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

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

}  // namespace

void optimize_module(llvm::Module& module, llvm::TargetMachine& target, int level) {
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
