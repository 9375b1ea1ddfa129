// Plain-loop references for checking the vendor baselines: slow, obviously right, canonical layouts.
#pragma once
#include <vector>

#include "datasets/workloads.h"

namespace tessel::testing {

inline std::vector<float> naive_gemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(s.m * s.n, 0.0f);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j)
      for (int64_t p = 0; p < s.k; ++p) c[i * s.n + j] += a[i * s.k + p] * b[p * s.n + j];
  return c;
}

// x is NCHW, w is OC×(C/groups)×KH×KW; the output is NCHW.
inline std::vector<float> naive_conv2d(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w) {
  int64_t oh = s.out_h(), ow = s.out_w(), in_per_group = s.c / s.groups, out_per_group = s.oc / s.groups;
  std::vector<float> y(s.output_elements(), 0.0f);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.oc; ++o)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t q = 0; q < ow; ++q) {
          float sum = 0;
          int64_t first_channel = (o / out_per_group) * in_per_group;
          for (int64_t ci = 0; ci < in_per_group; ++ci)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t iy = r * s.stride - s.pad + ky * s.dilation;
                int64_t ix = q * s.stride - s.pad + kx * s.dilation;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                sum += x[((n * s.c + first_channel + ci) * s.h + iy) * s.w + ix] *
                       w[((o * in_per_group + ci) * s.kh + ky) * s.kw + kx];
              }
          y[((n * s.oc + o) * oh + r) * ow + q] = sum;
        }
  return y;
}

}  // namespace tessel::testing
