// Scheduling, lowering and compilation of operators (ops/build.h).
#include "ops/build.h"

#include "ops/op_schedule.h"
#include "passes/lower/lower.h"
#include "support/registry.h"

namespace tessel::ops {

std::unique_ptr<CompiledFunction> build(const Schedule& schedule, const std::vector<Tensor>& args,
                                        const std::string& name, const std::string& backend) {
  LoweredFunc func = lower(schedule, args, name);
  return Registry<Backend>::instance().create(backend)->compile(func);
}

std::unique_ptr<CompiledFunction> build_default(const Tensor& output, const std::vector<Tensor>& inputs,
                                                const std::string& name, const std::string& backend) {
  std::vector<Tensor> args = inputs;
  args.push_back(output);
  return build(default_schedule(output), args, name, backend);
}

}  // namespace tessel::ops
