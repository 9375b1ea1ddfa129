// Named arrays in one binary file that is mapped, not read: the measurement runner receives a
// task's inputs and reference this way (search/measure/sandbox_runner.h), and a deployable module
// can keep its parameters so (issue 8).
//
//   save_tensors("params.bin", {{"weight", w}, {"bias", b}});
//   std::vector<NamedArray> params = load_tensors("params.bin");   // arrays view the mapping
//
// Layout: the 8 bytes "TSLTENS1", the length of a JSON header as 8 little-endian bytes, the header
//   {"format": "tessel-tensors", "version": 1,
//    "tensors": [{"name": "weight", "dtype": "float32", "shape": [64, 3], "offset": 128, "nbytes": 768}]}
// then each array's bytes at its offset (a multiple of 64, so mapped arrays keep NDArray's
// alignment). Arrays are host (cpu) memory, row-major.
#pragma once
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tessel {

struct NamedArray {
  std::string name;
  NDArray array;
};

// Writes the file to `path` through a temporary file renamed into place, so a reader never sees a
// half-written one. Throws UserError naming the path when it cannot be written (full disk, ...).
void save_tensors(const std::string& path, const std::vector<NamedArray>& arrays);

// The same bytes written from offset 0 of an open file (e.g. a memfd shared with a child process).
void write_tensors(int fd, const std::vector<NamedArray>& arrays, const std::string& what);

// Maps the file privately: arrays are writable, but writes stay in this process and never reach
// the file. The mapping lives until the last array from it goes. Throws UserError naming `path` for
// a file that is not a tensor file or is truncated.
std::vector<NamedArray> load_tensors(const std::string& path);
// The same from an open file descriptor (left open); `what` names it in messages.
std::vector<NamedArray> map_tensors(int fd, const std::string& what);

}  // namespace tessel
