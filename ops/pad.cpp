// Constant padding (ops/pad.h).
#include "ops/pad.h"

#include "support/error.h"

namespace tessel::ops {

Tensor pad(const Tensor& data, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           Expr value, const std::string& name) {
  int ndim = data.ndim();
  if (static_cast<int>(before.size()) != ndim || static_cast<int>(after.size()) != ndim)
    user_error("pad: '", data.name(), "' has ", ndim, " dimensions but ", before.size(), " and ",
               after.size(), " padding amounts were given; give one per dimension");
  std::vector<int64_t> shape(ndim);
  for (int d = 0; d < ndim; ++d) {
    if (before[d] < 0 || after[d] < 0)
      user_error("pad: dimension ", d, " of '", data.name(), "' has a negative padding amount");
    shape[d] = data.shape()[d] + before[d] + after[d];
  }
  return compute(shape, [&](const std::vector<Var>& idx) {
    std::vector<Expr> source;
    Expr inside;
    for (int d = 0; d < ndim; ++d) {
      if (before[d] == 0 && after[d] == 0) {
        source.push_back(idx[d]);
        continue;
      }
      Expr i = idx[d] - Expr(before[d]);
      Expr in_bounds = i >= Expr(0) && i < Expr(data.shape()[d]);
      inside = inside.defined() ? (inside && in_bounds) : in_bounds;
      // Select evaluates both sides, so the read must stay in bounds even where it is not used.
      source.push_back(min(max(i, Expr(0)), Expr(data.shape()[d] - 1)));
    }
    Expr read = data(source);
    return inside.defined() ? select(inside, read, cast(data.dtype(), value)) : read;
  }, name, "pad");
}

}  // namespace tessel::ops
