// The CPU lowering pipeline, read top to bottom: every pass of every phase, in the order they run
// (passes/lower/cpu_pipeline.h). Each pass is one file of passes/lower or passes/arith.
#include "passes/lower/cpu_pipeline.h"

#include <memory>
#include <unordered_map>

#include "passes/arith/simplify.h"
#include "passes/lower/lower.h"
#include "passes/lower/partition_loops.h"
#include "passes/lower/serialize_nested_parallel.h"
#include "passes/lower/storage_flatten.h"
#include "passes/lower/unroll.h"
#include "passes/lower/vectorize.h"

namespace tessel {

namespace {

// A pass that needs nothing but the statement.
Pass pass_of(std::string name, std::string description, Stmt (*rewrite)(const Stmt&)) {
  return {std::move(name), std::move(description), [rewrite](const Stmt& s, const PassContext&) { return rewrite(s); }};
}

Pass simplify_pass(std::string why) {
  return {"simplify", "simplification: " + std::move(why),
          [](const Stmt& s, const PassContext&) { return simplify(s); }};
}

// Stage plan, bound inference and schedule_ops: the loop nest of every stage.
Stmt loop_nests(const Stmt&, const PassContext& c) { return schedule_to_loops(c.schedule, c.arg_ops); }

// Tensors become the buffers of the function's arguments or local allocations.
Stmt flatten(const Stmt& s, const PassContext& c) {
  std::unordered_map<const OperationNode*, FuncArg> arg_of_op;
  for (size_t i = 0; i < c.args.size(); ++i) arg_of_op[c.arg_ops[i].get()] = c.args[i];
  return flatten_storage(s, arg_of_op);
}

}  // namespace

LoweringPipeline cpu_pipeline(const Target& target) {
  LoweringPipeline p("cpu");
  p.add(Phase::Schedule, {"schedule_ops", "stage plan, bound inference and every stage's loop nest", loop_nests});
  p.add(Phase::Flatten, {"storage_flatten", "tensors to flat buffers: arguments and local allocations", flatten});
  p.add(Phase::Simplify, simplify_pass("canonical indices; guards the loop bounds prove disappear"));
  p.add(Phase::Simplify, pass_of("partition_loops", "ragged edges of non-dividing splits out of the main iterations",
                                 partition_loops));
  p.add(Phase::Simplify, simplify_pass("drops the guards partitioning made provable"));
  int register_bits = target.cpu().vector_bits;
  p.add(Phase::LoopTransforms, {"vectorize", "vectorized loops to Ramp/Broadcast vector code, in register-sized pieces",
                                [register_bits](const Stmt& s, const PassContext&) {
                                  return vectorize_loops(s, register_bits);
                                }});
  p.add(Phase::LoopTransforms, pass_of("unroll", "unrolled loops to copies of their body", unroll_loops));
  p.add(Phase::Finalize, pass_of("serialize_nested_parallel", "parallel loops inside parallel loops run serially",
                                 serialize_nested_parallel));
  p.add(Phase::Finalize, simplify_pass("folds the constants of unrolled copies"));
  return p;
}

namespace {

struct CpuPipelineFactory : PipelineFactory {
  LoweringPipeline build(const Target& target) const override { return cpu_pipeline(target); }
};

std::unique_ptr<PipelineFactory> make_cpu_pipeline_factory(const PluginParams&) {
  return std::make_unique<CpuPipelineFactory>();
}

TESSEL_REGISTER_PLUGIN(PipelineFactory, llvm_cpu, "the CPU pipeline (passes/lower/cpu_pipeline.cpp)", {},
                       make_cpu_pipeline_factory);
TESSEL_REGISTER_PLUGIN(PipelineFactory, c_source, "the CPU pipeline (passes/lower/cpu_pipeline.cpp)", {},
                       make_cpu_pipeline_factory);

}  // namespace

}  // namespace tessel
