// The default CPU schedule of element-wise and data-movement ops (bias_add, relu, pad, layout
// transforms): producers of the same kinds inlined, the leading dimensions fused and spread over
// the threads, the innermost dimension vectorized.
#pragma once
#include "ir/schedule.h"

namespace tessel::ops {

Schedule schedule_injective_cpu(const Tensor& output);

}  // namespace tessel::ops
