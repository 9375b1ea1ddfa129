// Depthwise conv2d in NCHW (with a channel multiplier) and NCHWc: the tensor expressions against
// the grouped-convolution reference, and compiled with the default schedule.
#include "ops/depthwise_conv2d.h"
#include "ops/layout_transform.h"
#include "tests/ops/ops_test_util.h"
#include "tests/ops/reference_ops.h"

using namespace tessel;
using namespace tessel::ops;
using tessel::test::ConvGeometry;

namespace {

// Depthwise cases as grouped convolutions (groups = channels).
const ConvGeometry kCases[] = {
    {1, 16, 9, 9, 16, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 16}},
    {1, 32, 10, 7, 32, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 32}},
    {2, 8, 8, 8, 8, 3, 3, {{1, 1}, {2, 2}, {2, 2}, 8}},
    {1, 12, 7, 7, 12, 5, 5, {{2, 2}, {2, 2}, {1, 1}, 12}},
};

struct DepthwiseData {
  Tensor x, w;
  NDArray xv, wv;
  std::vector<float> expected;
  explicit DepthwiseData(const ConvGeometry& g)
      : x(placeholder({g.n, g.c, g.h, g.w}, DataType::float32(), "x")),
        w(placeholder({g.oc, 1, g.kh, g.kw}, DataType::float32(), "w")),
        xv(test::random_array(x.shape(), 6)),
        wv(test::random_array(w.shape(), 7)),
        expected(test::reference_conv2d(g, test::to_vector(xv), test::to_vector(wv))) {}
};

}  // namespace

TEST_CASE("depthwise_conv2d_nchw computes the grouped convolution", "[ops][depthwise]") {
  for (const ConvGeometry& g : kCases) {
    DepthwiseData d(g);
    test::check_definition(depthwise_conv2d_nchw(d.x, d.w, g.p), {{d.x, d.xv}, {d.w, d.wv}}, d.expected);
  }
}

TEST_CASE("depthwise_conv2d_nchw supports a channel multiplier", "[ops][depthwise]") {
  ConvGeometry g{1, 3, 6, 6, 6, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 3}};
  DepthwiseData d(g);
  test::check_definition(depthwise_conv2d_nchw(d.x, d.w, g.p), {{d.x, d.xv}, {d.w, d.wv}}, d.expected);
}

TEST_CASE("depthwise_conv2d_nchwc between layout transforms computes the convolution", "[ops][depthwise]") {
  for (const Target& target : test::cpu_targets())
    for (const ConvGeometry& g : kCases) {
      DepthwiseData d(g);
      int64_t block = choose_depthwise_block(g.c, target);
      INFO(target.key() << ": block " << block);
      Tensor y = depthwise_conv2d_nchwc(nchw_to_nchwc(d.x, block), oihw_to_oihwio(d.w, 1, block), g.p);
      test::check_definition(nchwc_to_nchw(y), {{d.x, d.xv}, {d.w, d.wv}}, d.expected);
    }
}

TEST_CASE("depthwise_conv2d_nchwc rejects a kernel of another blocking", "[ops][depthwise]") {
  Tensor x = placeholder({1, 2, 8, 8, 16}, DataType::float32(), "x");
  Tensor w = placeholder({2, 1, 3, 3, 1, 8}, DataType::float32(), "w");
  CHECK_THROWS_WITH(depthwise_conv2d_nchwc(x, w, {}), Catch::Contains("expected [2, 1, KH, KW, 1, 16]"));
}
