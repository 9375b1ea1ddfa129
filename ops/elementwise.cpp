// Element-wise operators (ops/elementwise.h).
#include "ops/elementwise.h"

#include "support/error.h"

namespace tessel::ops {

Tensor bias_add(const Tensor& data, const Tensor& bias, int axis, const std::string& name) {
  if (axis < 0 || axis >= data.ndim())
    user_error("bias_add: axis ", axis, " is out of range for the ", data.ndim(), "-D tensor '", data.name(), "'");
  if (bias.ndim() != 1 || bias.shape()[0] != data.shape()[axis])
    user_error("bias_add: bias '", bias.name(), "' must be 1-D with ", data.shape()[axis],
               " elements (the extent of axis ", axis, " of '", data.name(), "')");
  return compute(data.shape(), [&](const std::vector<Var>& idx) {
    return data(std::vector<Expr>(idx.begin(), idx.end())) + bias(idx[axis]);
  }, name, "injective");
}

Tensor relu(const Tensor& data, const std::string& name) {
  return compute(data.shape(), [&](const std::vector<Var>& idx) {
    return max(data(std::vector<Expr>(idx.begin(), idx.end())), make_zero(data.dtype()));
  }, name, "injective");
}

}  // namespace tessel::ops
