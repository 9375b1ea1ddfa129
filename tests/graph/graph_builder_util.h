// Small builders shared by the graph tests that assemble graphs by hand.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/graph/graph.h"

namespace tessel::test {

// A float32 tensor type of `shape` in `layout` ("" when the layout does not matter).
inline graph::TensorType f32(std::vector<int64_t> shape, const std::string& layout = "") {
  return {std::move(shape), DataType::float32(), layout};
}

// A constant of uniform random values in [-1, 1) from `seed`.
inline graph::ValueId random_constant(graph::Graph& g, const std::string& name, std::vector<int64_t> shape, uint64_t seed) {
  return g.add_constant(name, NDArray::random_uniform(std::move(shape), DataType::float32(), seed, -1, 1));
}

}  // namespace tessel::test
