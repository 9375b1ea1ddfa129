// Re-laying out an NDArray's elements: how constant weights are packed at compile time into the
// blocked layouts and GEMM panels the generated kernels read (passes/graph/alter_layout.cpp).
#pragma once
#include <vector>

#include "runtime/ndarray.h"

namespace tessel {

// `src` (on the CPU) viewed with shape `view` (the same elements, row-major), its axes permuted by
// `perm` into a new array: output axis d is view axis perm[d]. permuted_copy(w, {n / b, b, k},
// {0, 2, 1}) packs W[n, k] into panels [n/b, k, b].
NDArray permuted_copy(const NDArray& src, const std::vector<int64_t>& view, const std::vector<int>& perm);

}  // namespace tessel
