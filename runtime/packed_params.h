// A model's params copied into one host allocation, in their order: compile_model lists them in the
// order its kernels first read them, so one layer's weights end where the next one's begin.
//
// Why: every layer's weights stream from memory in a model. Packed, they lie on huge pages
// (runtime/host_memory.h) whatever their size, where a params.bin mapped from the page cache, or
// arrays under 2 MiB, are on 4 KiB ones, whose page walks a virtual machine makes costly.
// Measured: docs/graph.md, "Huge pages".
#pragma once
#include <vector>

#include "runtime/tensor_file.h"

namespace tessel {

// The arrays, in order, their contents copied into one allocation of allocate_host, each starting
// kHostAlignment-aligned right after the one before. Names and shapes stay; the returned arrays
// share the allocation.
std::vector<NamedArray> packed_params(const std::vector<NamedArray>& params);

}  // namespace tessel
