// Layout transforms: blocking and unblocking are inverse, blocked elements land where the layout
// says, and bad block sizes are rejected.
#include "ops/elementwise.h"
#include "ops/layout_transform.h"
#include "ops/pad.h"
#include "tests/ops/ops_test_util.h"

using namespace tessel;
using namespace tessel::ops;

TEST_CASE("NCHW -> NCHWc -> NCHW is the identity", "[ops][layout]") {
  Tensor x = placeholder({2, 12, 3, 5}, DataType::float32(), "x");
  NDArray xv = test::random_array(x.shape(), 10);
  for (int64_t block : {1, 4, 12}) {
    Tensor round_trip = nchwc_to_nchw(nchw_to_nchwc(x, block));
    CHECK(test::to_vector(evaluate(round_trip, {{x, xv}})) == test::to_vector(xv));
  }
}

TEST_CASE("blocked layouts put element (c, ...) at block c / b, lane c % b", "[ops][layout]") {
  Tensor w = placeholder({8, 6, 1, 2}, DataType::float32(), "w");
  NDArray wv = test::random_array(w.shape(), 11);
  NDArray blocked = evaluate(oihw_to_oihwio(w, 3, 4), {{w, wv}});
  REQUIRE(blocked.shape() == std::vector<int64_t>{2, 2, 1, 2, 3, 4});
  const float* src = wv.data_as<float>();
  const float* dst = blocked.data_as<float>();
  for (int64_t o = 0; o < 8; ++o)
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t kw = 0; kw < 2; ++kw)
        CHECK(dst[((((o / 4) * 2 + i / 3) * 2 + kw) * 3 + i % 3) * 4 + o % 4] == src[(o * 6 + i) * 2 + kw]);
}

TEST_CASE("layout transforms reject blocks that do not divide the channels", "[ops][layout]") {
  Tensor x = placeholder({1, 6, 4, 4}, DataType::float32(), "x");
  CHECK_THROWS_WITH(nchw_to_nchwc(x, 4), Catch::Contains("does not divide the channel extent 6"));
  CHECK_THROWS_WITH(oihw_to_oihwio(x, 4, 1), Catch::Contains("does not divide the input-channel extent 6"));
  CHECK_THROWS_WITH(nchwc_to_nchw(x), Catch::Contains("5-D"));
}

TEST_CASE("pad, bias_add and relu compute their element-wise definitions", "[ops][elementwise]") {
  Tensor x = placeholder({2, 3, 4}, DataType::float32(), "x");
  Tensor bias = placeholder({3}, DataType::float32(), "bias");
  NDArray xv = test::random_array(x.shape(), 12), bv = test::random_array(bias.shape(), 13);
  NDArray y = evaluate(relu(bias_add(x, bias, 1)), {{x, xv}, {bias, bv}});
  NDArray padded = evaluate(pad(x, {0, 1, 2}, {1, 0, 1}, Expr(-5.0)), {{x, xv}});
  REQUIRE(padded.shape() == std::vector<int64_t>{3, 4, 7});
  const float *xs = xv.data_as<float>(), *bs = bv.data_as<float>(), *ys = y.data_as<float>();
  const float* ps = padded.data_as<float>();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) {
        float v = xs[(i * 3 + j) * 4 + k];
        CHECK(ys[(i * 3 + j) * 4 + k] == std::max(v + bs[j], 0.f));
        CHECK(ps[(i * 4 + j + 1) * 7 + k + 2] == v);
      }
  CHECK(ps[0] == -5.f);                   // a padded corner
  CHECK(ps[(2 * 4 + 3) * 7 + 6] == -5.f);  // padding after the last row of the first dimension
  CHECK_THROWS_WITH(bias_add(x, bias, 2), Catch::Contains("must be 1-D with 4 elements"));
}
