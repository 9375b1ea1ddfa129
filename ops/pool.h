// 2-D pooling over NCHW data: max_pool2d (padding never wins the max) and avg_pool2d (dividing by
// the window points inside the input, or by the whole window with count_include_pad).
#pragma once
#include <array>

#include "ir/schedule.h"
#include "ops/conv2d_params.h"

namespace tessel::ops {

// params.groups is ignored. Tagged "max_pool2d".
Tensor max_pool2d(const Tensor& data, std::array<int64_t, 2> window, const Conv2dParams& params,
                  const std::string& name = "max_pool2d");
// params.dilation must be 1. Tagged "avg_pool2d"; its window sum is a stage tagged "pool_sum".
Tensor avg_pool2d(const Tensor& data, std::array<int64_t, 2> window, const Conv2dParams& params,
                  bool count_include_pad = false, const std::string& name = "avg_pool2d");

// Vectorized row tiles; the window reduction at the tiles of the output, reading the input through
// the pad (no padded copy).
Schedule schedule_pool2d_cpu(const Tensor& output);

}  // namespace tessel::ops
