// The window geometry shared by the convolutions and pooling: stride, symmetric padding,
// dilation and groups, and the output extent they give.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace tessel::ops {

struct Conv2dParams {
  std::array<int64_t, 2> stride{1, 1};    // (h, w)
  std::array<int64_t, 2> padding{0, 0};   // (h, w), applied on both sides
  std::array<int64_t, 2> dilation{1, 1};  // (h, w)
  int64_t groups = 1;
};

// Checks positive strides/dilations and non-negative padding; `op` names the caller in errors.
void check_params(const Conv2dParams& p, const char* op);

// Output extent of one spatial dimension; throws UserError (naming `op`) if the window does not fit.
int64_t conv_output_extent(int64_t input, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation,
                           const char* op);

}  // namespace tessel::ops
