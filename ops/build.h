// From a tensor expression to a callable kernel: schedule (the op's default one unless given),
// lower, compile with a registered back end; and a checked call on NDArrays.
//
//   Tensor c = gemm(a, b);
//   auto kernel = build_default(c, {a, b}, "gemm");
//   call_checked(*kernel, {a_nd, b_nd, c_nd});
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ir/schedule.h"
#include "runtime/ndarray.h"

namespace tessel::ops {

// `args` are the kernel's arguments in call order: inputs, then the outputs.
std::unique_ptr<CompiledFunction> build(const Schedule& schedule, const std::vector<Tensor>& args,
                                        const std::string& name, const std::string& backend = "llvm_cpu");

// build() with default_schedule(output); the arguments are `inputs` followed by `output`.
std::unique_ptr<CompiledFunction> build_default(const Tensor& output, const std::vector<Tensor>& inputs,
                                                const std::string& name, const std::string& backend = "llvm_cpu");

// Calls `kernel` after checking each array against the shape and type of its argument.
void call_checked(const CompiledFunction& kernel, const std::vector<NDArray>& args);

}  // namespace tessel::ops
