// The inline float32 exp, tanh and sigmoid of the LLVM back end (backends/llvm_cpu/float_math.h)
// against double-precision libm, in units in the last place, over float's whole range: both sides
// of tanh's switch at 0.3, subnormal and overflowing results, ±0, ±inf and NaN; scalars and
// vectors of 8 and 3 lanes (a width libm has no vector entry for).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// The distance from `got` to the exact value in units of the float spacing at the exact value
// (of the smallest normal's spacing below it, so that subnormal results count absolutely).
double ulps(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0 : INFINITY;
  if (exact == 0) return got == 0 && std::signbit(got) == std::signbit(exact) ? 0 : INFINITY;  // tanh(-0) = -0
  float rounded = static_cast<float>(exact);  // inf past float's largest value
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : INFINITY;
  double magnitude = std::max(std::abs(exact), static_cast<double>(std::numeric_limits<float>::min()));
  double spacing = std::ldexp(1.0, std::ilogb(magnitude) - 23);
  return std::abs(static_cast<double>(got) - exact) / spacing;
}

// Arguments: a sweep of [lo, hi] and the special values.
std::vector<float> arguments(double lo, double hi, std::vector<float> special) {
  const int steps = 4000;
  for (int k = 0; k <= steps; ++k) special.push_back(static_cast<float>(lo + (hi - lo) * k / steps));
  while (special.size() % 24) special.push_back(0.0f);  // whole vectors of 8 and 3 lanes
  return special;
}

// The largest error of `name` over `xs`, generated with `lanes` lanes.
double max_ulps(const std::string& name, double (*exact)(double), const std::vector<float>& xs, int lanes) {
  int64_t n = static_cast<int64_t>(xs.size());
  FuncArg a = vector_arg("a", DataType::float32(), n), out = vector_arg("out", DataType::float32(), n);
  Var i("i");
  Expr index = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, 1, lanes);
  auto f = jit(LoweredFunc{"float_math_" + name + std::to_string(lanes), {a, out},
                           loop(i, n / lanes, make_store(out.buffer, index, call(name, {load(a.buffer, index)})))});
  std::vector<NDArray> arrays = {NDArray::empty({n}, DataType::float32()), NDArray::zeros({n}, DataType::float32())};
  std::memcpy(arrays[0].data(), xs.data(), n * sizeof(float));
  run(*f, arrays);
  double worst = 0;
  for (int64_t k = 0; k < n; ++k) {
    float got = arrays[1].data_as<float>()[k];
    double e = ulps(got, exact(xs[k]));
    INFO(name << "(" << xs[k] << ") = " << got << ", exact " << exact(xs[k]) << ", lanes " << lanes);
    CHECK(e <= 2.5);  // reported per argument, so a failure names it (measured: 0.74, 1.86, 1.92 ulp)
    worst = std::max(worst, e);
  }
  return worst;
}

const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST_CASE("float32 exp, tanh and sigmoid inline are within a few ulp of libm everywhere", "[llvm_cpu][math]") {
  std::vector<float> exp_args =
      arguments(-110, 95, {0.0f, -0.0f, 1e-30f, -1e-30f, 88.7f, 88.8f, -87.5f, -103.5f, -200.0f, kInf, -kInf, kNaN});
  std::vector<float> tanh_args = arguments(-12, 12, {0.0f, -0.0f, 1e-30f, -1e-20f, 1e-4f, 0.2999999f, 0.3f, -0.3f,
                                                     0.3000001f, 9.5f, 50.0f, kInf, -kInf, kNaN});
  auto exact_exp = [](double v) { return std::exp(v); };
  auto exact_tanh = [](double v) { return std::tanh(v); };
  auto exact_sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int lanes : {1, 8, 3}) {
    double e = max_ulps("exp", exact_exp, exp_args, lanes);
    double t = max_ulps("tanh", exact_tanh, tanh_args, lanes);
    double s = max_ulps("sigmoid", exact_sigmoid, tanh_args, lanes);
    WARN("lanes " << lanes << ": exp " << e << ", tanh " << t << ", sigmoid " << s << " ulp at most");
  }
}
