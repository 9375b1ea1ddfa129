// The vendor baselines compute what they claim: OpenBLAS sgemm and oneDNN (grouped, strided,
// padded, dilated and depthwise) convolution against plain loops, on small shapes. Runs under the
// environment as it is (no re-execution, OpenBLAS presets left alone).
#include <catch2/catch.hpp>

#include <cmath>

#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_runner.h"
#include "tests/benchmarks/naive_reference.h"

using namespace tessel;

namespace {

std::vector<float> output_of(const PreparedKernel& kernel, int64_t elements) {
  kernel.run();
  std::vector<float> out(elements, NAN);
  kernel.read_output(out.data());
  return out;
}

double max_abs_diff(const std::vector<float>& x, const std::vector<float>& y) {
  REQUIRE(x.size() == y.size());
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(double(x[i]) - double(y[i])));
  return worst;
}

void check_onednn_conv2d(const Conv2dShape& s, int threads) {
  INFO(describe(s) << " threads=" << threads);
  std::vector<float> x = random_tensor(s.n * s.c * s.h * s.w, 1);
  std::vector<float> w = random_tensor(s.oc * s.reduction_size(), 2);
  PreparedKernel kernel = prepare_onednn_conv2d(s, x.data(), w.data(), threads);
  CHECK(kernel.name == "onednn");
  double err = max_abs_diff(output_of(kernel, s.output_elements()), testing::naive_conv2d(s, x, w));
  CHECK(err <= error_tolerance(s.reduction_size()));
}

}  // namespace

TEST_CASE("OpenBLAS sgemm equals the naive product", "[baselines]") {
  for (GemmShape s : {GemmShape{13, 17, 19}, GemmShape{64, 48, 80}, GemmShape{1, 5, 3}}) {
    INFO(describe(s));
    std::vector<float> a = random_tensor(s.m * s.k, 1), b = random_tensor(s.k * s.n, 2);
    PreparedKernel kernel = prepare_openblas_gemm(s, a.data(), b.data(), 2);
    CHECK(kernel.name == "openblas");
    CHECK(max_abs_diff(output_of(kernel, s.m * s.n), testing::naive_gemm(s, a, b)) <= error_tolerance(s.k));
  }
  CHECK_FALSE(openblas_corename().empty());
}

TEST_CASE("OpenBLAS kernel owns its inputs", "[baselines]") {
  GemmShape s{8, 8, 8};
  std::vector<float> a = random_tensor(64, 1), b = random_tensor(64, 2);
  std::vector<float> expected = testing::naive_gemm(s, a, b);
  PreparedKernel kernel = prepare_openblas_gemm(s, a.data(), b.data(), 1);
  a.assign(64, 0.0f);
  CHECK(max_abs_diff(output_of(kernel, 64), expected) <= error_tolerance(8));
}

TEST_CASE("oneDNN conv2d equals the naive convolution", "[baselines]") {
  // N, C, H, W, OC, KH, KW, stride, pad, dilation, groups
  check_onednn_conv2d({1, 3, 11, 11, 8, 3, 3, 1, 1}, 2);
  check_onednn_conv2d({2, 5, 13, 9, 7, 3, 3, 2, 1}, 1);       // batch 2, non-square, odd sizes
  check_onednn_conv2d({1, 16, 12, 12, 32, 1, 1, 2, 0}, 2);    // 1×1, stride 2
  check_onednn_conv2d({1, 4, 15, 15, 6, 3, 3, 1, 2, 2}, 2);   // dilation 2
  check_onednn_conv2d({1, 8, 10, 10, 12, 3, 3, 1, 1, 1, 4}, 2);  // 4 groups
  check_onednn_conv2d({1, 3, 23, 23, 16, 7, 7, 2, 3}, 2);     // a small C1
  check_onednn_conv2d({1, 6, 9, 9, 4, 3, 5, 3, 0}, 1);        // KH ≠ KW, stride 3
}

TEST_CASE("oneDNN depthwise equals the naive grouped convolution", "[baselines]") {
  for (DepthwiseShape s : {DepthwiseShape{1, 32, 12, 12, 3, 1, 1}, DepthwiseShape{1, 16, 13, 13, 3, 2, 1},
                           DepthwiseShape{2, 5, 8, 8, 5, 1, 2}}) {
    INFO(describe(s));
    std::vector<float> x = random_tensor(s.n * s.c * s.h * s.w, 1), w = random_tensor(s.c * s.k * s.k, 2);
    PreparedKernel kernel = prepare_onednn_depthwise(s, x.data(), w.data(), 2);
    std::vector<float> expected = testing::naive_conv2d(s.as_conv2d(), x, w);
    CHECK(max_abs_diff(output_of(kernel, s.output_elements()), expected) <= error_tolerance(s.reduction_size()));
  }
}
