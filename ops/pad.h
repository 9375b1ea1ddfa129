// Constant padding as a compute stage: convolutions and pooling read a padded copy of their input
// instead of testing bounds in their inner loops.
#pragma once
#include <vector>

#include "ir/tensor.h"

namespace tessel::ops {

// out has shape data.shape + before + after per dimension; points outside data hold `value`.
// Tagged "pad".
Tensor pad(const Tensor& data, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           Expr value = Expr(0.0), const std::string& name = "pad");

}  // namespace tessel::ops
