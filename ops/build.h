// From a tensor expression to a callable kernel: schedule (the op's default one for the target
// unless given), lower, compile with the back end the target names. CompiledFunction::run calls it
// on NDArrays, checked.
//
//   Tensor c = gemm(a, b);
//   auto kernel = build_default(c, {a, b}, "gemm");   // for the host; or pass a Target
//   kernel->run({&a_nd, &b_nd, &c_nd});
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ir/schedule.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel::ops {

// `args` are the kernel's arguments in call order: inputs, then the outputs. Compiled by the back
// end of the target's kind (create_backend).
std::unique_ptr<CompiledFunction> build(const Schedule& schedule, const std::vector<Tensor>& args,
                                        const std::string& name, const Target& target = Target::host());

// build() with default_schedule(output, target); the arguments are `inputs` followed by `output`.
std::unique_ptr<CompiledFunction> build_default(const Tensor& output, const std::vector<Tensor>& inputs,
                                                const std::string& name, const Target& target = Target::host());

}  // namespace tessel::ops
