// Tessel's side of each benchmark: the operator compiled with its best known schedule, its inputs
// converted ahead of time into the layout that schedule wants. Inputs are given in canonical
// layouts (row-major A[M,K] and B[K,N]; NCHW data; OIHW or C×1×K×K weights) and copied, so the
// caller's buffers may go away; `threads` is the number of worker threads the kernel may use.
#pragma once
#include <functional>
#include <memory>

#include "backends/backend.h"
#include "benchmarks/baselines/prepared_kernel.h"
#include "datasets/workloads.h"
#include "ops/workload_ops.h"

namespace tessel {

// Compiles Tessel's side for an operator instance (ops/workload_ops.h): by default with the
// operator's ops/ default schedule; a caller may give another schedule of the same operator, e.g.
// the best configuration of a tuning database (`tessel bench --tuned`), whose kernel must take the
// instance's arguments.
using KernelBuilder = std::function<std::unique_ptr<CompiledFunction>(const ops::OpInstance&)>;
KernelBuilder default_kernel_builder();

PreparedKernel prepare_tessel_gemm(const GemmShape&, const float* a, const float* b, int threads,
                                   const KernelBuilder& build = default_kernel_builder());
PreparedKernel prepare_tessel_conv2d(const Conv2dShape&, const float* x_nchw, const float* w_oihw, int threads,
                                     const KernelBuilder& build = default_kernel_builder());
PreparedKernel prepare_tessel_depthwise(const DepthwiseShape&, const float* x_nchw, const float* w_c1kk, int threads,
                                        const KernelBuilder& build = default_kernel_builder());

}  // namespace tessel
