// A model's params copied into one host allocation, in the order its kernels first read them.
//
// Why: every layer's weights stream from memory in a model. Packed, they lie on huge pages
// (runtime/host_memory.h) whatever their size, where a params.bin mapped from the page cache, or
// arrays under 2 MiB, are on 4 KiB ones, whose page walks a virtual machine makes costly; and one
// layer's weights end where the next one's begin, for the prefetchers. Measured: docs/graph.md,
// "Huge pages".
#pragma once
#include <string>
#include <vector>

#include "runtime/tensor_file.h"

namespace tessel {

// The arrays, their contents copied into one allocation of allocate_host (each 64-byte aligned):
// first those named in `order` (names not among the arrays are skipped), in that order, then the
// rest in theirs. The names and shapes stay; the returned arrays share the allocation.
std::vector<NamedArray> packed_params(const std::vector<NamedArray>& params, const std::vector<std::string>& order);

}  // namespace tessel
