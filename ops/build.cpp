// Scheduling, lowering and compilation of operators (ops/build.h).
#include "ops/build.h"

#include "ops/op_schedule.h"
#include "passes/lower/lower.h"

namespace tessel::ops {

std::unique_ptr<CompiledFunction> build(const Schedule& schedule, const std::vector<Tensor>& args,
                                        const std::string& name, const Target& target) {
  LoweredFunc func = lower(schedule, args, name);
  return create_backend(target)->compile(func);
}

std::unique_ptr<CompiledFunction> build_default(const Tensor& output, const std::vector<Tensor>& inputs,
                                                const std::string& name, const Target& target) {
  std::vector<Tensor> args = inputs;
  args.push_back(output);
  return build(default_schedule(output, target), args, name, target);
}

}  // namespace tessel::ops
