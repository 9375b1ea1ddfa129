// The oneDNN baselines for conv2d and depthwise conv2d, set up the way oneDNN is fastest: the
// primitive chooses its own (blocked) memory layouts, input and weights are reordered into them
// ahead of time, and the output is reordered back to NCHW only when read, so timing `run` measures
// the convolution alone. The convolution algorithm is direct (no Winograd), the one Tessel computes.
//
// Debian's oneDNN runs on OpenMP (libgomp); its thread count is set with omp_set_num_threads.
#pragma once
#include "benchmarks/baselines/prepared_kernel.h"
#include "datasets/workloads.h"

namespace tessel {

// x is N×C×H×W, w is OC×(C/groups)×KH×KW; the output is N×OC×OH×OW. Both inputs are copied.
PreparedKernel prepare_onednn_conv2d(const Conv2dShape& shape, const float* x_nchw, const float* w_oihw, int threads);

// oneDNN's grouped convolution with groups = channels; w is C×1×K×K.
PreparedKernel prepare_onednn_depthwise(const DepthwiseShape& shape, const float* x_nchw, const float* w_c1kk, int threads);

// Bounds how long OpenMP's idle threads spin before sleeping (GOMP_SPINCOUNT=1000, a few tens of
// microseconds, unless the user set GOMP_SPINCOUNT or OMP_WAIT_POLICY). libgomp's default spin of
// ~300,000 rounds kept a core busy for milliseconds after each oneDNN call and slowed a two-thread
// side run right after it; passive waiting instead made oneDNN itself up to 2.3× slower on small
// layers. Consecutive oneDNN calls still find the threads spinning. True if the environment
// changed; libgomp reads it when it loads (see benchmarks/bench_environment.h).
bool limit_openmp_spin_wait();

// Sets the thread count of oneDNN's OpenMP runtime for the calling thread.
void set_onednn_threads(int threads);

}  // namespace tessel
