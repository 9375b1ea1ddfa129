// conv2d in NCHW and NCHWc: the tensor expressions against a plain loop reference (stride,
// padding, dilation, groups, odd sizes), and each compiled with its default schedule against the
// interpreter; the per-row pad schedule of a layer without padding.
#include "ir/equality.h"
#include "ops/conv2d_nchw.h"
#include "ops/conv2d_nchwc.h"
#include "ops/layout_transform.h"
#include "ops/op_schedule.h"
#include "passes/lower/lower.h"
#include "tests/ops/ops_test_util.h"
#include "tests/ops/reference_ops.h"

using namespace tessel;
using namespace tessel::ops;
using tessel::test::ConvGeometry;

namespace {

const ConvGeometry kCases[] = {
    {1, 3, 7, 9, 4, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},    // odd sizes, same padding
    {2, 4, 9, 8, 8, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}},    // stride 2, batch 2
    {1, 4, 10, 11, 4, 3, 3, {{1, 1}, {2, 2}, {2, 2}, 1}},  // dilation 2
    {1, 8, 6, 6, 12, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 2}},   // 2 groups
    {1, 6, 5, 7, 10, 1, 1, {{1, 2}, {0, 0}, {1, 1}, 1}},   // 1x1, unequal strides
    {1, 3, 13, 13, 16, 7, 7, {{2, 2}, {3, 3}, {1, 1}, 1}}, // a 7x7 stem, as in ResNet C1
};

struct ConvData {
  Tensor x, w;
  NDArray xv, wv;
  std::vector<float> expected;
  explicit ConvData(const ConvGeometry& g)
      : x(placeholder({g.n, g.c, g.h, g.w}, DataType::float32(), "x")),
        w(placeholder({g.oc, g.c / g.p.groups, g.kh, g.kw}, DataType::float32(), "w")),
        xv(test::random_array(x.shape(), 1)),
        wv(test::random_array(w.shape(), 2)),
        expected(test::reference_conv2d(g, test::to_vector(xv), test::to_vector(wv))) {}
};

}  // namespace

TEST_CASE("conv2d_nchw computes the convolution", "[ops][conv2d]") {
  for (const ConvGeometry& g : kCases) {
    ConvData d(g);
    test::check_definition(conv2d_nchw(d.x, d.w, g.p), {{d.x, d.xv}, {d.w, d.wv}}, d.expected);
  }
}

TEST_CASE("conv2d_nchwc between layout transforms computes the convolution", "[ops][conv2d]") {
  for (const Target& target : test::cpu_targets())
    for (const ConvGeometry& g : kCases) {
      ConvData d(g);
      Conv2dBlocks b = choose_conv2d_blocks(g.c, g.oc, g.p.groups, target);
      INFO(target.key() << ": blocks " << b.ib << ", " << b.ob);
      Tensor y = conv2d_nchwc(nchw_to_nchwc(d.x, b.ib), oihw_to_oihwio(d.w, b.ib, b.ob), g.p);
      test::check_definition(nchwc_to_nchw(y), {{d.x, d.xv}, {d.w, d.wv}}, d.expected);
    }
}

TEST_CASE("conv2d rejects inconsistent shapes with a message saying what to change", "[ops][conv2d]") {
  Tensor x = placeholder({1, 6, 8, 8}, DataType::float32(), "x");
  Tensor w = placeholder({4, 4, 3, 3}, DataType::float32(), "w");
  CHECK_THROWS_WITH(conv2d_nchw(x, w, {}), Catch::Contains("groups"));
  Tensor w3 = placeholder({4, 6, 9, 9}, DataType::float32(), "w3");
  CHECK_THROWS_WITH(conv2d_nchw(x, w3, {}), Catch::Contains("does not fit"));
  CHECK_THROWS_WITH(conv2d_nchw(x, placeholder({4, 6, 3, 3}, DataType::float32(), "k"), {{0, 1}}),
                    Catch::Contains("stride"));
  CHECK_THROWS_WITH(conv2d_nchwc(x, w, {}), Catch::Contains("nchw_to_nchwc"));
}

TEST_CASE("asking an unpadded conv2d_nchwc to pad per row schedules it as without", "[ops][conv2d]") {
  // A 1x1 layer has no pad stage: pad_per_row has nothing to place (it used to throw).
  Tensor x = placeholder({1, 2, 5, 7, 16}, DataType::float32(), "x");
  Tensor w = placeholder({1, 2, 1, 1, 16, 32}, DataType::float32(), "w");
  Tensor y = conv2d_nchwc(x, w, {});
  Target host = Target::host();
  LoweredFunc per_row = lower(default_schedule(y, host, {{"pad_per_row", true}}), {x, w, y}, "conv");
  CHECK(structural_equal(per_row, lower(default_schedule(y, host), {x, w, y}, "conv")));
}
