// Helpers of the operator tests: random inputs, the interpreter as oracle, and the differential
// check of an op compiled with its default schedule against the interpreter.
#pragma once
#include <catch2/catch.hpp>

#include <cstring>
#include <utility>
#include <vector>

#include "ir/te_interpreter.h"
#include "runtime/ndarray.h"

namespace tessel::test {

inline NDArray random_array(const std::vector<int64_t>& shape, uint64_t seed) {
  return NDArray::random_uniform(shape, DataType::float32(), seed);
}

inline std::vector<float> to_vector(const NDArray& a) {
  std::vector<float> v(a.numel());
  std::memcpy(v.data(), a.data(), a.nbytes());
  return v;
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, double(std::abs(a[i] - b[i])));
  return worst;
}

using Inputs = std::vector<std::pair<Tensor, NDArray>>;

// The interpreter's value of `output` compared with a reference computed independently.
inline void check_definition(const Tensor& output, const Inputs& inputs, const std::vector<float>& expected,
                             double tolerance = 1e-4) {
  NDArray value = evaluate(output, inputs);
  CHECK(max_abs_diff(to_vector(value), expected) <= tolerance);
}

}  // namespace tessel::test
