// NumPy's .npy files as NDArrays: what models' example inputs and reference outputs are stored
// as (datasets/models/), and what `tessel run` reads and writes.
//
// Reads format versions 1 to 3, C order, little-endian float32, float64, int32, int64, int8, uint8
// and bool; writes version 1.
//
//   NDArray x = read_npy("build/models/resnet18.input.npy");
//   write_npy("y.npy", y);
#pragma once
#include <string>
#include <string_view>

#include "runtime/ndarray.h"

namespace tessel::frontend {

// The array in a .npy file. UserError naming the file for a missing, truncated or malformed file,
// Fortran order, big-endian or unsupported element types.
NDArray read_npy(const std::string& path);

// The same from the file's bytes; `what` names them in messages. Nothing is allocated for the
// data before the bytes are known to hold it.
NDArray parse_npy(std::string_view bytes, const std::string& what);

// Writes `array` as a version-1 .npy file, whole or not at all (support/output_file.h); UserError
// naming the file if it cannot be written.
void write_npy(const std::string& path, const NDArray& array);

// The bytes write_npy writes.
std::string npy_bytes(const NDArray& array);

}  // namespace tessel::frontend
