// The lowering pipeline: one function listing the passes in order (see lower.h).
#include "passes/lower/lower.h"

#include <unordered_set>

#include "passes/arith/simplify.h"
#include "passes/lower/bound_inference.h"
#include "passes/lower/partition_loops.h"
#include "passes/lower/schedule_ops.h"
#include "passes/lower/serialize_nested_parallel.h"
#include "passes/lower/stage_plan.h"
#include "passes/lower/storage_flatten.h"
#include "passes/lower/unroll.h"
#include "passes/lower/vectorize.h"
#include "support/error.h"

namespace tessel {

namespace {

// The operations the arguments hold now, checked to be distinct members of the schedule.
std::vector<Tensor> argument_ops(const Schedule& sch, const std::vector<Tensor>& args) {
  std::vector<Tensor> ops;
  std::unordered_set<const OperationNode*> seen;
  for (const Tensor& t : args) {
    Tensor op = sch.current(t);
    if (!seen.insert(op.get()).second)
      user_error("lower: tensor '", t.name(), "' is passed twice in the arguments; pass each tensor once");
    ops.push_back(op);
  }
  return ops;
}

Stmt loops_before_flattening(const Schedule& sch, const std::vector<Tensor>& arg_ops) {
  StagePlan plan(sch);
  StageRanges ranges = infer_bounds(plan);
  std::unordered_set<const OperationNode*> external;
  for (const Tensor& op : arg_ops) external.insert(op.get());
  return schedule_ops(plan, ranges, external);
}

}  // namespace

Stmt schedule_to_loops(const Schedule& sch, const std::vector<Tensor>& args) {
  return loops_before_flattening(sch, argument_ops(sch, args));
}

LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name) {
  std::vector<Tensor> arg_ops = argument_ops(sch, args);
  LoweredFunc f{name, {}, {}};
  std::unordered_map<const OperationNode*, FuncArg> arg_of_op;
  for (size_t i = 0; i < args.size(); ++i) {
    f.args.push_back({Buffer(args[i].name(), arg_ops[i].dtype(), MemoryScope::global()), arg_ops[i].shape()});
    arg_of_op[arg_ops[i].get()] = f.args.back();
  }
  Stmt body = loops_before_flattening(sch, arg_ops);  // stage plan, bound inference, schedule_ops
  body = flatten_storage(body, arg_of_op);
  body = simplify(body);         // canonical indices; guards the loop bounds prove disappear
  body = partition_loops(body);  // ragged edges of non-dividing splits out of the main iterations
  body = simplify(body);         // drops the guards partitioning made provable
  body = vectorize_loops(body);
  body = unroll_loops(body);
  body = serialize_nested_parallel(body);
  f.body = simplify(body);  // folds the constants of unrolled copies
  return f;
}

}  // namespace tessel
