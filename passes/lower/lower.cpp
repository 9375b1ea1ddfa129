// Lowering a schedule: the function's arguments, then the target's pipeline (see lower.h).
#include "passes/lower/lower.h"

#include <unordered_set>

#include "passes/lower/bound_inference.h"
#include "passes/lower/schedule_ops.h"
#include "passes/lower/stage_plan.h"
#include "support/error.h"

namespace tessel {

namespace {

// Whether a stage prefetches all of `t` (Stage::prefetch_whole).
bool prefetched_whole(const Schedule& sch, const Tensor& t) {
  for (const Stage& stage : sch.stages())
    for (const WholePrefetch& p : stage->whole_prefetches)
      if (p.tensor.same_as(t)) return true;
  return false;
}

// The operations the arguments hold now, checked to be distinct members of the schedule (or
// tensors a stage only prefetches, which the computation does not read).
std::vector<Tensor> argument_ops(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<Tensor> ops;
  std::unordered_set<const OperationNode*> seen;
  for (const Tensor& t : args) {
    Tensor op = !sch.contains(t) && prefetched_whole(sch, t) ? t : sch.current(t);
    if (!seen.insert(op.get()).second)
      user_error("lower: tensor '", t.name(), "' is passed twice in the arguments; pass each tensor once");
    ops.push_back(op);
  }
  return ops;
}

}  // namespace

Stmt schedule_to_loops(const Schedule& sch, const std::vector<Tensor>& args) {
  std::unordered_set<const OperationNode*> external;
  for (const Tensor& op : argument_ops(sch, args)) external.insert(op.get());
  StagePlan plan(sch);
  StageRanges ranges = infer_bounds(plan);
  return schedule_ops(plan, ranges, external);
}

LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name) {
  return lower(sch, args, name, Target::host());
}

LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name,
                  const Target& target, const LowerOptions& options) {
  LoweringPipeline pipeline = lowering_pipeline(target, options.extra_passes);
  PassContext context{target, sch, name, {}, argument_ops(sch, args)};
  for (size_t i = 0; i < args.size(); ++i)
    context.args.push_back({Buffer(args[i].name(), context.arg_ops[i].dtype(), MemoryScope::global()),
                            context.arg_ops[i].shape()});
  return LoweredFunc{name, context.args, pipeline.run(context, options.after_each_pass)};
}

}  // namespace tessel
