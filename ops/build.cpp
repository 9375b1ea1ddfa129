// Scheduling, lowering and compilation of operators (ops/build.h).
#include "ops/build.h"

#include "ops/op_schedule.h"
#include "passes/lower/lower.h"
#include "support/error.h"
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

void call_checked(const CompiledFunction& kernel, const std::vector<NDArray>& args) {
  const auto& params = kernel.func().args;
  if (args.size() != params.size())
    user_error("kernel '", kernel.func().name, "' takes ", params.size(), " arguments but ", args.size(),
               " arrays were given");
  std::vector<void*> pointers;
  for (size_t i = 0; i < args.size(); ++i) {
    args[i].check_matches(params[i].shape, params[i].buffer.dtype(),
                          "argument " + std::to_string(i) + " ('" + params[i].buffer.name() + "') of kernel '" +
                              kernel.func().name + "'");
    pointers.push_back(const_cast<void*>(args[i].data()));
  }
  kernel.call(pointers.data());
}

}  // namespace tessel::ops
