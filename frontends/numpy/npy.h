// NumPy's .npy files as NDArrays: what models' example inputs and reference outputs are stored
// as (datasets/models/), and what `tessel run` will read and write.
//
// Reads format versions 1 to 3, C order, little-endian float32, float64 (converted to float32 on
// request), int32, int64, int8, uint8 and bool; writes version 1.
//
//   NDArray x = read_npy("build/models/resnet18.input.npy");
//   write_npy("y.npy", y);
#pragma once
#include <string>

#include "runtime/ndarray.h"

namespace tessel::frontend {

// The array in a .npy file. UserError naming the file for a missing, truncated or malformed file,
// Fortran order, big-endian or unsupported element types.
NDArray read_npy(const std::string& path);

// Writes `array` as a version-1 .npy file; UserError naming the file if it cannot be written.
void write_npy(const std::string& path, const NDArray& array);

}  // namespace tessel::frontend
