// Plain C++ loop references for the operator tests: straightforward definitions of convolution,
// pooling and matrix multiply in canonical layouts, written independently of the tensor
// expressions so that a wrong index in an op's definition shows up as a mismatch.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/conv2d_params.h"

namespace tessel::test {

struct ConvGeometry {
  int64_t n, c, h, w, oc, kh, kw;
  ops::Conv2dParams p;
  int64_t out_h() const { return (h + 2 * p.padding[0] - p.dilation[0] * (kh - 1) - 1) / p.stride[0] + 1; }
  int64_t out_w() const { return (w + 2 * p.padding[1] - p.dilation[1] * (kw - 1) - 1) / p.stride[1] + 1; }
};

// x [n, c, h, w], k [oc, c/groups, kh, kw] -> [n, oc, out_h, out_w]
inline std::vector<float> reference_conv2d(const ConvGeometry& g, const std::vector<float>& x,
                                           const std::vector<float>& k) {
  int64_t oh = g.out_h(), ow = g.out_w(), cg = g.c / g.p.groups, og = g.oc / g.p.groups;
  std::vector<float> y(g.n * g.oc * oh * ow, 0.f);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t o = 0; o < g.oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = 0;
          for (int64_t rc = 0; rc < cg; ++rc)
            for (int64_t ry = 0; ry < g.kh; ++ry)
              for (int64_t rx = 0; rx < g.kw; ++rx) {
                int64_t iy = i * g.p.stride[0] - g.p.padding[0] + ry * g.p.dilation[0];
                int64_t ix = j * g.p.stride[1] - g.p.padding[1] + rx * g.p.dilation[1];
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                int64_t ch = o / og * cg + rc;
                acc += double(x[((n * g.c + ch) * g.h + iy) * g.w + ix]) * k[((o * cg + rc) * g.kh + ry) * g.kw + rx];
              }
          y[((n * g.oc + o) * oh + i) * ow + j] = float(acc);
        }
  return y;
}

// Max or average (counting only points inside the input unless include_pad) over windows of x.
inline std::vector<float> reference_pool2d(const ConvGeometry& g, const std::vector<float>& x, bool is_max,
                                           bool include_pad) {
  int64_t oh = g.out_h(), ow = g.out_w();
  std::vector<float> y(g.n * g.c * oh * ow);
  for (int64_t nc = 0; nc < g.n * g.c; ++nc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t count = 0;
        for (int64_t ry = 0; ry < g.kh; ++ry)
          for (int64_t rx = 0; rx < g.kw; ++rx) {
            int64_t iy = i * g.p.stride[0] - g.p.padding[0] + ry * g.p.dilation[0];
            int64_t ix = j * g.p.stride[1] - g.p.padding[1] + rx * g.p.dilation[1];
            if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;  // padding never wins a max
            float v = x[(nc * g.h + iy) * g.w + ix];
            acc = is_max ? std::max(acc, double(v)) : acc + v;
            ++count;
          }
        y[(nc * oh + i) * ow + j] = float(is_max ? acc : acc / double(include_pad ? g.kh * g.kw : count));
      }
  return y;
}

// a [m, k] · b [k, n] (or b [n, k] transposed) -> [m, n]
inline std::vector<float> reference_matmul(int64_t m, int64_t n, int64_t k, const std::vector<float>& a,
                                           const std::vector<float>& b, bool b_transposed) {
  std::vector<float> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t r = 0; r < k; ++r) acc += double(a[i * k + r]) * (b_transposed ? b[j * k + r] : b[r * n + j]);
      c[i * n + j] = float(acc);
    }
  return c;
}

}  // namespace tessel::test
