// Depthwise conv2d: each channel convolved with its own filters. The canonical layout (data
// [N, C, H, W], kernel [C·m, 1, KH, KW] for channel multiplier m) and the blocked one the CPU
// schedule is fast on (data [N, C/b, H, W, b], kernel [C/b, 1, KH, KW, 1, b], multiplier 1: the
// layouts nchw_to_nchwc and oihw_to_oihwio(kernel, 1, b) produce). Padding is a stage at the root.
#pragma once
#include "ir/schedule.h"
#include "ops/conv2d_params.h"
#include "ops/window_schedule.h"
#include "target/target.h"

namespace tessel::ops {

// Tagged "depthwise_conv2d_nchw". params.groups is ignored (it is C).
Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                             const std::string& name = "depthwise_conv2d_nchw");
// Tagged "depthwise_conv2d_nchwc".
Tensor depthwise_conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                              const std::string& name = "depthwise_conv2d_nchwc");

// The channel block for the blocked layout: a divisor of `channels` up to one vector of the target.
int64_t choose_depthwise_block(int64_t channels, const Target& target);

// Whether a blocked depthwise `output` splits its rows between the threads (one share each,
// WindowConfig::row_shares) rather than its channel blocks: on several threads, when the rows
// divide into equal shares. In a model the 1x1 layers around it mostly split rows
// (ops::rows_outer_pays); with channels split, each thread writes lines of every row that the other
// core read in the previous run. MobileNet-V2 under the AVX2 ceiling, 2 threads, Zen 4: 384
// channels at 14x14 alone 9.3 us, 25 us after a 1x1 layer had read its output on both cores; in
// the model 26.0 -> 13.4 us (its slowest place), 576 channels 36.6 -> 21.1. At 7x7 (shares of 4 and
// 3 rows) 17 -> 22 us, so those keep channels.
bool depthwise_row_shares_pay(const Tensor& output, const CpuDescription& cpu);

// The lanes a register tile of a blocked depthwise `output` may cover instead of its whole channel
// block (WindowConfig::block_lanes): one vector, where the block is several; 0 where it is one or
// less.
int64_t depthwise_vector_lanes(const Tensor& output, const CpuDescription& cpu);

// The fallback configuration for a depthwise `output` on `target`: in the blocked layout, a
// register tile of columns × the channel block whose accumulators fit the register file beside the
// kernel vectors of every kernel column (ops/cpu_tiles.h), columns dividing OW, and the threads'
// split of depthwise_row_shares_pay; in NCHW, vectorized row tiles.
// The kernel width unrolled; the padding inline (no copy of the input).
WindowConfig depthwise_fallback_config(const Tensor& output, const Target& target);

// The depthwise schedule (ops/window_schedule.h's, on a cache_write accumulator).
Schedule schedule_depthwise_conv2d(const Tensor& output, const WindowConfig& config);

}  // namespace tessel::ops
