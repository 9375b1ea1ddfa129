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

// The fallback configuration for a depthwise `output` on `target`: in the blocked layout, a
// register tile of columns × the channel block whose accumulators fit the register file beside the
// kernel vectors of every kernel column (ops/cpu_tiles.h), columns dividing OW; in NCHW,
// vectorized row tiles.
// The kernel width unrolled; the padding inline (no copy of the input).
WindowConfig depthwise_fallback_config(const Tensor& output, const Target& target);

// The depthwise schedule (ops/window_schedule.h's, on a cache_write accumulator).
Schedule schedule_depthwise_conv2d(const Tensor& output, const WindowConfig& config);

}  // namespace tessel::ops
