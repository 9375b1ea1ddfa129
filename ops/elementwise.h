// Element-wise operators: bias_add and relu.
#pragma once
#include "ir/tensor.h"

namespace tessel::ops {

// data + bias broadcast along `axis` (bias is 1-D with data.shape[axis] elements). Tagged "injective".
Tensor bias_add(const Tensor& data, const Tensor& bias, int axis = 1, const std::string& name = "bias_add");
// max(data, 0). Tagged "injective".
Tensor relu(const Tensor& data, const std::string& name = "relu");

}  // namespace tessel::ops
