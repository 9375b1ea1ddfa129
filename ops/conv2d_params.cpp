// Window geometry checks and output extents (ops/conv2d_params.h).
#include "ops/conv2d_params.h"

#include "support/error.h"

namespace tessel::ops {

void check_params(const Conv2dParams& p, const char* op) {
  for (int d = 0; d < 2; ++d) {
    if (p.stride[d] <= 0) user_error(op, ": stride ", p.stride[d], " must be positive");
    if (p.dilation[d] <= 0) user_error(op, ": dilation ", p.dilation[d], " must be positive");
    if (p.padding[d] < 0) user_error(op, ": padding ", p.padding[d], " must not be negative");
  }
  if (p.groups <= 0) user_error(op, ": groups ", p.groups, " must be positive");
}

int64_t conv_output_extent(int64_t input, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation,
                           const char* op) {
  int64_t window = dilation * (kernel - 1) + 1;
  int64_t span = input + 2 * padding - window;
  if (span < 0)
    user_error(op, ": the ", window, "-wide window does not fit the input extent ", input, " padded by ",
               padding, " on each side; use a smaller kernel or more padding");
  return span / stride + 1;
}

}  // namespace tessel::ops
