// Params packed in one allocation: their order and contents kept, each array 64-byte aligned right
// after the one before, the block on huge pages when it spans one.
#include <catch2/catch.hpp>

#include <cstdint>

#include "runtime/host_memory.h"
#include "runtime/packed_params.h"

namespace {

using tessel::ElementType;
using tessel::NamedArray;
using tessel::NDArray;

uintptr_t address(const NDArray& a) { return reinterpret_cast<uintptr_t>(a.data()); }

std::vector<NamedArray> three_params(int64_t big_elements) {
  return {{"a", NDArray::random_uniform({3, 5}, ElementType::of<float>(), 1)},
          {"b", NDArray::random_uniform({big_elements}, ElementType::of<float>(), 2)},
          {"c", NDArray::random_uniform({7}, ElementType::of<int32_t>(), 3, -100, 100)}};
}

}  // namespace

TEST_CASE("packed params keep their order, each aligned right after the one before", "[runtime][packed_params]") {
  std::vector<NamedArray> params = three_params(33);
  std::vector<NamedArray> packed = tessel::packed_params(params);
  REQUIRE(packed.size() == 3);
  CHECK(packed[0].name == "a");
  CHECK(packed[1].name == "b");
  CHECK(packed[2].name == "c");
  CHECK(address(packed[0].array) % tessel::kHostAlignment == 0);
  CHECK(address(packed[1].array) == address(packed[0].array) + 64);   // 60 bytes, rounded up
  CHECK(address(packed[2].array) == address(packed[1].array) + 192);  // 132 bytes
  for (const NamedArray& p : packed)
    for (const NamedArray& original : params)
      if (original.name == p.name) {
        CHECK(p.array.shape() == original.array.shape());
        CHECK(p.array.dtype() == original.array.dtype());
        CHECK(tessel::max_abs_diff(p.array, original.array) == 0);
      }
}

TEST_CASE("packed params spanning a huge page start on one", "[runtime][packed_params]") {
  std::vector<NamedArray> params = three_params(1 << 19);  // 2 MiB of floats, and more
  std::vector<NamedArray> packed = tessel::packed_params(params);
  REQUIRE(packed.size() == 3);
  CHECK(packed[0].name == "a");
  CHECK(address(packed[0].array) % tessel::kHugePageBytes == 0);
  CHECK(tessel::max_abs_diff(packed[1].array, params[1].array) == 0);
}

TEST_CASE("no params pack into nothing", "[runtime][packed_params]") {
  CHECK(tessel::packed_params({}).empty());
}
