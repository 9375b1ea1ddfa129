// Tessel's side of each benchmark: the operator compiled with its best known schedule, its inputs
// converted ahead of time into the layout that schedule wants. Inputs are given in canonical
// layouts (row-major A[M,K] and B[K,N]; NCHW data; OIHW or C×1×K×K weights) and copied, so the
// caller's buffers may go away; `threads` is the number of worker threads the kernel may use.
#pragma once
#include "benchmarks/prepared_kernel.h"
#include "datasets/workloads.h"

namespace tessel {

PreparedKernel prepare_tessel_gemm(const GemmShape&, const float* a, const float* b, int threads);
PreparedKernel prepare_tessel_conv2d(const Conv2dShape&, const float* x_nchw, const float* w_oihw, int threads);
PreparedKernel prepare_tessel_depthwise(const DepthwiseShape&, const float* x_nchw, const float* w_c1kk, int threads);

}  // namespace tessel
