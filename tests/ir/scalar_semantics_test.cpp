// The one scalar semantics (ir/scalar_semantics.h), value by value: floor division and modulo,
// wrapping, division by -1 and 0, the NaN and signed-zero rule of float min/max, casts. The
// differential test of tests/integration checks that every executor agrees with it.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ir/scalar_semantics.h"

using namespace tessel;

namespace {

constexpr int64_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
const DataType i32 = DataType::int32(), f32 = DataType::float32();

int64_t int_op(NodeKind k, int64_t a, int64_t b, DataType t = DataType::int32()) {
  auto r = scalar::binary(k, t, scalar::of_int(a, t), scalar::of_int(b, t));
  REQUIRE(r);
  return r->i;
}

double float_op(NodeKind k, double a, double b, DataType t = DataType::float32()) {
  return scalar::binary(k, t, scalar::of_float(a, t), scalar::of_float(b, t))->f;
}

bool same_float(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

}  // namespace

TEST_CASE("scalar semantics: floor division and modulo", "[ir][scalar]") {
  CHECK(int_op(NodeKind::Div, 7, 2) == 3);
  CHECK(int_op(NodeKind::Div, -7, 2) == -4);
  CHECK(int_op(NodeKind::Div, 7, -2) == -4);
  CHECK(int_op(NodeKind::Div, -7, -2) == 3);
  CHECK(int_op(NodeKind::Mod, -7, 2) == 1);
  CHECK(int_op(NodeKind::Mod, 7, -2) == -1);
  CHECK(int_op(NodeKind::Mod, -8, 2) == 0);
  // unsigned: plain division of the unsigned numbers
  DataType u32 = DataType{TypeCode::UInt, 32, 1};
  CHECK(int_op(NodeKind::Div, 0xFFFFFFFF, 2, u32) == 0x7FFFFFFF);
  CHECK(int_op(NodeKind::Max, 0xFFFFFFFF, 1, u32) == 0xFFFFFFFF);
}

TEST_CASE("scalar semantics: integers wrap at their width, INT_MIN / -1 included", "[ir][scalar]") {
  CHECK(int_op(NodeKind::Add, kIntMax, 1) == kIntMin);
  CHECK(int_op(NodeKind::Sub, kIntMin, 1) == kIntMax);
  CHECK(int_op(NodeKind::Mul, 65536, 65536) == 0);
  CHECK(int_op(NodeKind::Mul, kIntMax, 2) == -2);
  CHECK(int_op(NodeKind::Div, kIntMin, -1) == kIntMin);
  CHECK(int_op(NodeKind::Mod, kIntMin, -1) == 0);
  CHECK(int_op(NodeKind::Add, 127, 1, DataType::int8()) == -128);
  CHECK(int_op(NodeKind::Div, -128, -1, DataType::int8()) == -128);
  CHECK(int_op(NodeKind::Div, std::numeric_limits<int64_t>::min(), -1, DataType::int64()) ==
        std::numeric_limits<int64_t>::min());
  CHECK(scalar::wrap(300, DataType::int8()) == 44);
  CHECK(scalar::wrap(-1, DataType{TypeCode::UInt, 8, 1}) == 255);
}

TEST_CASE("scalar semantics: integer division by zero has no value", "[ir][scalar]") {
  CHECK_FALSE(scalar::binary(NodeKind::Div, i32, scalar::of_int(1, i32), scalar::of_int(0, i32)));
  CHECK_FALSE(scalar::binary(NodeKind::Mod, i32, scalar::of_int(1, i32), scalar::of_int(0, i32)));
  // a float division by zero is IEEE
  CHECK(float_op(NodeKind::Div, 1.0, 0.0) == INFINITY);
  CHECK(std::isnan(float_op(NodeKind::Div, 0.0, 0.0)));
}

TEST_CASE("scalar semantics: float min and max are a < b ? a : b, NaN and signed zeros included", "[ir][scalar]") {
  double nan = std::nan("");
  CHECK(same_float(float_op(NodeKind::Min, nan, 1.0), 1.0));  // a NaN operand gives b
  CHECK(same_float(float_op(NodeKind::Min, 1.0, nan), nan));
  CHECK(same_float(float_op(NodeKind::Max, nan, 1.0), 1.0));
  CHECK(same_float(float_op(NodeKind::Max, 1.0, nan), nan));
  CHECK(same_float(float_op(NodeKind::Min, -0.0, 0.0), 0.0));
  CHECK(same_float(float_op(NodeKind::Min, 0.0, -0.0), -0.0));
  CHECK(same_float(float_op(NodeKind::Max, -0.0, 0.0), 0.0));
  CHECK(same_float(float_op(NodeKind::Min, -INFINITY, 3.0), -INFINITY));
  // comparisons are IEEE: only != holds with a NaN
  CHECK(scalar::binary(NodeKind::NE, f32, scalar::of_float(nan, f32), scalar::of_float(nan, f32))->i == 1);
  CHECK(scalar::binary(NodeKind::EQ, f32, scalar::of_float(nan, f32), scalar::of_float(nan, f32))->i == 0);
  CHECK(scalar::binary(NodeKind::GE, f32, scalar::of_float(nan, f32), scalar::of_float(1, f32))->i == 0);
}

TEST_CASE("scalar semantics: float32 rounds every operation; Mod uses one fma", "[ir][scalar]") {
  CHECK(float_op(NodeKind::Add, 1.0, 1e-8) == 1.0);  // 1 + 1e-8 is 1 in float32
  CHECK(float_op(NodeKind::Add, 1.0, 1e-8, DataType{TypeCode::Float, 64, 1}) == 1.0 + 1e-8);
  CHECK(float_op(NodeKind::Mod, -7.5, 2.0) == 0.5);
  CHECK(float_op(NodeKind::Mod, 7.5, -2.0) == -0.5);
  float a = 16777217.0f, b = 3.0f;  // a rounds to 16777216
  CHECK(float_op(NodeKind::Mod, a, b) == static_cast<double>(std::fma(-std::floor(a / b), b, a)));
}

TEST_CASE("scalar semantics: casts", "[ir][scalar]") {
  auto cast = [](scalar::Value v, DataType from, DataType to) { return scalar::cast(v, from, to); };
  CHECK(cast(scalar::of_float(-2.7, f32), f32, i32)->i == -2);
  CHECK(cast(scalar::of_float(2.7, f32), f32, i32)->i == 2);
  CHECK_FALSE(cast(scalar::of_float(3e9, f32), f32, i32));  // out of range: no value
  CHECK_FALSE(cast(scalar::of_float(std::nan(""), f32), f32, i32));
  CHECK_FALSE(cast(scalar::of_float(300, f32), f32, DataType::int8()));
  CHECK_FALSE(cast(scalar::of_float(-1, f32), f32, DataType{TypeCode::UInt, 32, 1}));
  CHECK(cast(scalar::of_float(-0.5, f32), f32, DataType{TypeCode::UInt, 32, 1})->i == 0);
  CHECK(cast(scalar::of_int(300, i32), i32, DataType::int8())->i == 44);  // integers wrap
  CHECK(cast(scalar::of_int(-1, DataType::int8()), DataType::int8(), DataType{TypeCode::UInt, 16, 1})->i == 65535);
  CHECK(cast(scalar::of_float(std::nan(""), f32), f32, DataType::boolean())->i == 1);
  CHECK(cast(scalar::of_float(-0.0, f32), f32, DataType::boolean())->i == 0);
  // int64 to float32 rounds once, to nearest
  int64_t big = (int64_t{1} << 53) + 1;
  CHECK(cast(scalar::of_int(big, DataType::int64()), DataType::int64(), f32)->f == static_cast<double>(static_cast<float>(big)));
  CHECK(cast(scalar::of_float(0.1, DataType{TypeCode::Float, 64, 1}), DataType{TypeCode::Float, 64, 1}, f32)->f == static_cast<double>(0.1f));
}
