// Host memory for NDArrays: 64-byte aligned, and arrays of kHugePageBytes or more on transparent
// huge pages where the kernel offers them.
//
// Why: in a model every layer's weights stream from memory, and each 4 KiB page a stream enters
// misses the TLB; on a virtual machine that is a two-level page walk, and a prefetch waits on it
// like a load. On the Intel Xeon (model 167, 2 vCPUs) one core streamed 16 MiB with 16 FMAs per
// line at 11-14 GB/s on 4 KiB pages and 18-22 GB/s on 2 MiB ones; ResNet-18's 512-channel Winograd
// call (C12, weights flushed) ran 1.82-1.86 -> 1.62-1.64 ms, the whole model 3-7% faster on one
// thread (docs/graph.md, "Huge pages"). Debian's default (transparent_hugepage=madvise) backs only
// the ranges a process asks for, so large arrays are mapped on their own, 2 MiB aligned, and asked.
#pragma once
#include <cstddef>
#include <memory>

namespace tessel {

constexpr size_t kHostAlignment = 64;
constexpr size_t kHugePageBytes = size_t{2} << 20;

// `n` rounded up to a multiple of `multiple`.
constexpr size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// `bytes` rounded up to a whole number of kHostAlignment blocks: where the next array may start.
constexpr size_t host_aligned_size(size_t bytes) { return round_up(bytes, kHostAlignment); }

// Whether large arrays ask for huge pages: true unless the environment sets TESSEL_HUGE_PAGES=0
// (the ablation), read once.
bool huge_pages_enabled();

// `nbytes` of uninitialized memory (0 allowed) aligned to kHostAlignment bytes, freed when the last
// owner lets go. From kHugePageBytes on (and huge_pages_enabled()): a private mapping rounded up to
// whole 2 MiB pages and advised MADV_HUGEPAGE. UserError if memory is exhausted.
std::shared_ptr<void> allocate_host(size_t nbytes);

}  // namespace tessel
