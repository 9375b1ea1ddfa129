// From a tensor expression to a callable kernel: schedule (the op's default one unless given),
// lower, compile with a registered back end. CompiledFunction::run calls it on NDArrays, checked.
//
//   Tensor c = gemm(a, b);
//   auto kernel = build_default(c, {a, b}, "gemm");
//   kernel->run({&a_nd, &b_nd, &c_nd});
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

}  // namespace tessel::ops
