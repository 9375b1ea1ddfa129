// NDArray: alignment, shared versus deep copies, seeded random fill, comparison, and the errors
// raised for bad shapes, types and sizes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/ndarray.h"
#include "tests/user_error_check.h"

using namespace tessel;

namespace {

const ElementType kF32 = ElementType::of<float>();
const ElementType kI8 = ElementType::of<int8_t>();

}  // namespace

TEST_CASE("ndarray: storage is 64-byte aligned and sized by shape and type", "[ndarray]") {
  for (int64_t n : {1, 3, 17, 1000}) {
    NDArray a = NDArray::empty({n, 3}, kF32);
    CHECK(reinterpret_cast<uintptr_t>(a.data()) % NDArray::kAlignment == 0);
    CHECK(a.numel() == n * 3);
    CHECK(a.nbytes() == static_cast<size_t>(n * 3 * 4));
  }
  NDArray scalar = NDArray::zeros({}, kI8);
  CHECK(scalar.numel() == 1);
  CHECK(scalar.nbytes() == 1);
  CHECK(NDArray::empty({0, 4}, kF32).numel() == 0);
  CHECK(ElementType::of<bool>().bytes() == 1);
  CHECK(ElementType::of<bool>().str() == "bool");
  CHECK(ElementType(ElementType::kFloat, 32, 8).str() == "float32x8");
}

TEST_CASE("ndarray: copies share storage, copy() does not", "[ndarray]") {
  NDArray a = NDArray::from_vector<float>({2, 2}, {1, 2, 3, 4});
  NDArray shared = a;
  NDArray deep = a.copy();
  a.data_as<float>()[0] = 10;
  CHECK(shared.data_as<float>()[0] == 10);
  CHECK(deep.data_as<float>()[0] == 1);
  CHECK(max_abs_diff(a, deep) == 9);
}

TEST_CASE("ndarray: random_uniform is seeded and respects its range", "[ndarray]") {
  NDArray a = NDArray::random_uniform({64, 64}, kF32, 7, -2.0, 3.0);
  NDArray b = NDArray::random_uniform({64, 64}, kF32, 7, -2.0, 3.0);
  NDArray c = NDArray::random_uniform({64, 64}, kF32, 8, -2.0, 3.0);
  CHECK(max_abs_diff(a, b) == 0);
  CHECK(max_abs_diff(a, c) > 0);
  double lo = 1e9, hi = -1e9;
  for (int64_t i = 0; i < a.numel(); ++i) {
    lo = std::min(lo, a.get_double(i));
    hi = std::max(hi, a.get_double(i));
  }
  CHECK(lo >= -2.0);
  CHECK(hi < 3.0);
  CHECK(hi - lo > 4.5);  // 4096 samples cover nearly all of the range

  // The range is clamped to int8, [-128, 127]; 10000 uniform draws reach both ends.
  NDArray ints = NDArray::random_uniform({10000}, kI8, 1, -300, 300);
  bool saw_min = false, saw_max = false;
  for (int64_t i = 0; i < ints.numel(); ++i) {
    int v = ints.data_as<int8_t>()[i];
    saw_min |= v == -128;
    saw_max |= v == 127;
  }
  CHECK(saw_min);
  CHECK(saw_max);
}

TEST_CASE("ndarray: max_abs_diff treats NaN as a failure and equal infinities as equal", "[ndarray]") {
  float inf = INFINITY;
  NDArray a = NDArray::from_vector<float>({3}, {1, inf, 2});
  NDArray b = NDArray::from_vector<float>({3}, {1.5f, inf, 2});
  CHECK(max_abs_diff(a, b) == 0.5);
  NDArray n = NDArray::from_vector<float>({3}, {1, inf, NAN});
  CHECK(std::isnan(max_abs_diff(a, n)));
}

TEST_CASE("ndarray: get_int reads integers exactly and refuses what has no int64 value", "[ndarray]") {
  const int64_t big = std::numeric_limits<int64_t>::max();
  NDArray a = NDArray::from_vector<int64_t>({3}, {big, -big - 1, (int64_t(1) << 53) + 1});
  CHECK(a.get_int(0) == big);  // through a double it would be 2^63
  CHECK(a.get_int(1) == -big - 1);
  CHECK(a.get_int(2) == (int64_t(1) << 53) + 1);
  CHECK(NDArray::from_vector<int8_t>({1}, {-7}).get_int(0) == -7);
  NDArray u = NDArray::from_vector<uint64_t>({2}, {uint64_t(big), uint64_t(big) + 1});
  CHECK(u.get_int(0) == big);
  test::require_user_error([&] { u.get_int(1); }, "beyond int64's range");
  test::require_user_error([&] { NDArray::from_vector<float>({1}, {1.0f}).get_int(0); }, "no integer elements");
  test::require_user_error([&] { a.get_int(3); }, "index 3 out of range");
}

TEST_CASE("ndarray: mismatches and misuse raise UserError", "[ndarray]") {
  NDArray f = NDArray::zeros({2, 3}, kF32);
  test::require_user_error([&] { f.data_as<int32_t>(); }, "NDArray of float32 accessed as int32");
  test::require_user_error([&] { max_abs_diff(f, NDArray::zeros({3, 2}, kF32)); }, "expected an array of float32[2, 3]");
  test::require_user_error([&] { max_abs_diff(f, NDArray::zeros({2, 3}, kI8)); }, "but got int8[2, 3]");
  test::require_user_error([] { NDArray::empty({2, -1}, ElementType::of<float>()); }, "negative dimension");
  test::require_user_error([] { NDArray::from_vector<float>({2, 2}, {1, 2, 3}); }, "3 values given for shape [2, 2]");
  test::require_user_error([] { NDArray::random_uniform({2}, ElementType::of<float>(), 0, 1.0, -1.0); }, "must not exceed");
  test::require_user_error([] { NDArray().data_as<float>(); }, "undefined NDArray");
  test::require_user_error([&] { f.get_double(6); }, "index 6 out of range");
}

TEST_CASE("ndarray: checked_nbytes sizes shapes read from files without overflow", "[ndarray]") {
  CHECK(NDArray::checked_nbytes({2, 3}, kF32) == 24);
  CHECK(NDArray::checked_nbytes({}, kI8) == 1);
  CHECK(NDArray::checked_nbytes({0, int64_t{1} << 40}, kF32) == 0);
  CHECK(NDArray::checked_nbytes({int64_t{1} << 60}, kF32) == int64_t{1} << 62);
  // 2^32 * 2^32 floats overflow int64; the product used to wrap and allocate what it wrapped to.
  test::require_user_error([] { NDArray::empty({int64_t{1} << 32, int64_t{1} << 32}, kF32); }, "2^62 bytes");
  test::require_user_error([] { NDArray::checked_nbytes({0, std::numeric_limits<int64_t>::max()}, kF32); },
                           "dimension beyond 2^62");
  test::require_user_error([] { NDArray::checked_nbytes({3, -1}, kF32, "input 'x':"); },
                           "input 'x': shape [3, -1] has a negative dimension");
}

TEST_CASE("ndarray: devices and memory owned elsewhere", "[ndarray]") {
  NDArray a = NDArray::zeros({4}, kF32);
  CHECK(a.device() == Device::cpu());
  CHECK(a.device().str() == "cpu:0");
  test::require_user_error([] { NDArray::empty({4}, kF32, Device{DeviceType::kCUDA, 0}); }, {"cuda:0", "from_external"});

  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
  std::weak_ptr<std::vector<float>> watch = owner;
  NDArray view = NDArray::from_external(owner->data() + 2, {2, 2}, kF32, Device::cpu(), owner);
  owner.reset();
  CHECK_FALSE(watch.expired());  // the array keeps its owner alive
  CHECK(view.get_double(0) == 3.0);
  view.set_double(3, 9.0);
  CHECK((*watch.lock())[5] == 9.0f);
  CHECK(view.copy().data() != view.data());
  view = NDArray();
  CHECK(watch.expired());

  float raw[3] = {1, 2, 3};
  NDArray borrowed = NDArray::from_external(raw, {3}, kF32, Device::cpu(), nullptr);
  CHECK(borrowed.defined());
  CHECK(borrowed.data() == raw);
  test::require_user_error([&] { NDArray::from_external(reinterpret_cast<char*>(raw) + 1, {2}, kF32, Device::cpu(), nullptr); },
                           "aligned");
  test::require_user_error([] { NDArray::from_external(nullptr, {2}, kF32, Device::cpu(), nullptr); }, "null");
}

TEST_CASE("ndarray: element type names parse back", "[ndarray]") {
  for (ElementType t : {kF32, kI8, ElementType::of<bool>(), ElementType::of<uint16_t>(), ElementType::of<double>(),
                        ElementType(ElementType::kFloat, 32, 8), ElementType(ElementType::kInt, 64, 4)})
    CHECK(ElementType::parse(t.str()) == t);
  for (const char* bad : {"float8", "int7", "floaty", "float32x", "float32x0", "", "x4"})
    test::require_user_error([&] { ElementType::parse(bad); }, "unknown element type");
}
