// Tessel's side of each benchmark: the operator compiled for the target with its best known
// schedule, its inputs converted ahead of time into the layout that schedule wants. Inputs are
// given in canonical layouts (row-major A[M,K] and B[K,N]; NCHW data; OIHW or C×1×K×K weights) and
// copied, so the caller's buffers may go away; the target's thread count is the number of worker
// threads the kernel may use.
#pragma once
#include <functional>
#include <memory>

#include "backends/backend.h"
#include "benchmarks/baselines/prepared_kernel.h"
#include "datasets/workloads.h"
#include "ops/workload_ops.h"
#include "target/target.h"

namespace tessel {

// Compiles Tessel's side for an operator instance (ops/workload_ops.h, built for the target): by
// default with the operator's ops/ default schedule for the target; a caller may give another
// schedule of the same operator, e.g. the best configuration of a tuning database (`tessel bench
// --tuned`), whose kernel must take the instance's arguments.
using KernelBuilder = std::function<std::unique_ptr<CompiledFunction>(const ops::OpInstance&)>;
KernelBuilder default_kernel_builder(const Target& target);

PreparedKernel prepare_tessel_gemm(const GemmShape&, const float* a, const float* b, const Target& target,
                                   const KernelBuilder& build);
PreparedKernel prepare_tessel_conv2d(const Conv2dShape&, const float* x_nchw, const float* w_oihw,
                                     const Target& target, const KernelBuilder& build);
// The Winograd convolution F(m×m, 3×3) of a 3×3 stride-1 convolution, its default schedule, the
// weights transformed ahead of time (as the layout pass does at compile time).
PreparedKernel prepare_tessel_winograd(const Conv2dShape&, int64_t m, const float* x_nchw, const float* w_oihw,
                                       const Target& target);
PreparedKernel prepare_tessel_depthwise(const DepthwiseShape&, const float* x_nchw, const float* w_c1kk,
                                        const Target& target, const KernelBuilder& build);

}  // namespace tessel
