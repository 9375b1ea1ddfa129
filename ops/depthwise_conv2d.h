// Depthwise conv2d: each channel convolved with its own filters. The canonical layout (data
// [N, C, H, W], kernel [C·m, 1, KH, KW] for channel multiplier m) and the blocked one the CPU
// schedule is fast on (data [N, C/b, H, W, b], kernel [C/b, 1, KH, KW, 1, b], multiplier 1: the
// layouts nchw_to_nchwc and oihw_to_oihwio(kernel, 1, b) produce). Padding is a stage at the root.
#pragma once
#include "ir/schedule.h"
#include "ops/conv2d_params.h"
#include "ops/window_schedule.h"

namespace tessel::ops {

// Tagged "depthwise_conv2d_nchw". params.groups is ignored (it is C).
Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                             const std::string& name = "depthwise_conv2d_nchw");
// Tagged "depthwise_conv2d_nchwc".
Tensor depthwise_conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                              const std::string& name = "depthwise_conv2d_nchwc");

// The channel block for the blocked layout: a divisor of `channels` up to 16 (one AVX-512 vector).
int64_t choose_depthwise_block(int64_t channels);

// Register tile of a divisor of OW up to `reg_n_limit` columns × the channel block (or columns
// only, vectorized, in NCHW); the kernel window outside it. The padding placed as `pad` says
// (ops/window_schedule.h); by default inlined, so no copy of the input is made.
Schedule schedule_depthwise_conv2d_cpu(const Tensor& output, int64_t reg_n_limit = 14,
                                       PadPlacement pad = PadPlacement::Inline);

}  // namespace tessel::ops
