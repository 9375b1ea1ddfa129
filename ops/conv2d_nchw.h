// conv2d in the canonical layout: data [N, C, H, W], kernel [O, C/groups, KH, KW], output
// [N, O, OH, OW], with stride, padding (a padded stage), dilation and groups, and a simple default
// CPU schedule (the fast path is conv2d_nchwc).
#pragma once
#include "ir/schedule.h"
#include "ops/conv2d_params.h"

namespace tessel::ops {

// Tagged "conv2d_nchw".
Tensor conv2d_nchw(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                   const std::string& name = "conv2d_nchw");

// Register tile of a divisor of OW up to 16 columns, vectorized along the row (on every CPU target).
Schedule schedule_conv2d_nchw_cpu(const Tensor& output);

}  // namespace tessel::ops
