// Max and average pooling: the tensor expressions against a loop reference (padding, stride,
// count_include_pad), and compiled with the default schedule.
#include "ops/pool.h"
#include "tests/ops/ops_test_util.h"
#include "tests/ops/reference_ops.h"

using namespace tessel;
using namespace tessel::ops;
using tessel::test::ConvGeometry;

namespace {

const ConvGeometry kCases[] = {
    {1, 3, 8, 8, 3, 2, 2, {{2, 2}, {0, 0}, {1, 1}, 1}},
    {2, 4, 9, 7, 4, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}},
    {1, 2, 5, 6, 2, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}},
};

}  // namespace

TEST_CASE("max_pool2d and avg_pool2d compute the window reductions", "[ops][pool]") {
  for (const ConvGeometry& g : kCases) {
    Tensor x = placeholder({g.n, g.c, g.h, g.w}, DataType::float32(), "x");
    NDArray xv = test::random_array(x.shape(), 8);
    std::vector<float> xs = test::to_vector(xv);
    test::check_definition(max_pool2d(x, {g.kh, g.kw}, g.p), {{x, xv}},
                           test::reference_pool2d(g, xs, true, false));
    test::check_definition(avg_pool2d(x, {g.kh, g.kw}, g.p, false), {{x, xv}},
                           test::reference_pool2d(g, xs, false, false));
    test::check_definition(avg_pool2d(x, {g.kh, g.kw}, g.p, true), {{x, xv}},
                           test::reference_pool2d(g, xs, false, true));
  }
}

TEST_CASE("max_pool2d with dilation skips window points", "[ops][pool]") {
  ConvGeometry g{1, 2, 9, 9, 2, 3, 3, {{1, 1}, {2, 2}, {2, 2}, 1}};
  Tensor x = placeholder({g.n, g.c, g.h, g.w}, DataType::float32(), "x");
  NDArray xv = test::random_array(x.shape(), 9);
  test::check_definition(max_pool2d(x, {g.kh, g.kw}, g.p), {{x, xv}},
                         test::reference_pool2d(g, test::to_vector(xv), true, false));
  CHECK_THROWS_WITH(avg_pool2d(x, {3, 3}, g.p), Catch::Contains("dilation"));
}
