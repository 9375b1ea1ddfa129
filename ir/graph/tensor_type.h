// The type of a value in the dataflow graph: a static shape, an element type and a layout.
//
// A layout names each dimension with a letter, upper case for a whole dimension and lower case,
// after its size, for the inner block of a split one: "NCHW" is 4-D, "NCHW8c" is 5-D (channels
// split into blocks of 8, as the blocked convolutions use), "OIHW" is a convolution kernel.
// Values without a meaningful layout (vectors, matrices, shapes) have the empty layout.
//
//   TensorType t{{1, 64, 56, 56}, DataType::float32(), "NCHW"};
//   t.str() == "float32[1, 64, 56, 56] NCHW";  layout_rank("NCHW8c") == 5
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/type.h"

namespace tessel::graph {

struct TensorType {
  std::vector<int64_t> shape;
  DataType dtype = DataType::float32();
  std::string layout;

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;
  std::string str() const;
  bool operator==(const TensorType&) const = default;
};

// The number of dimensions a layout names, or -1 if it is not a layout ("NCHW8c" -> 5,
// "NC8" -> -1: a block size must be followed by its lower-case dimension).
int layout_rank(const std::string& layout);

}  // namespace tessel::graph
