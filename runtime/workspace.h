// The heap buffers of generated kernels (an `allocate` too large for the stack: a padded input,
// a Winograd transform), drawn from a per-thread cache of freed blocks instead of malloc, as TVM's
// runtime draws them from its workspace pool. glibc serves blocks of a megabyte or more with mmap,
// or trims them from the heap when freed, so each run of a kernel would page-fault its buffers in
// afresh: measured on a Winograd convolution of ResNet-18 (64 channels, 56×56, 2 threads), the
// faults made it 3.9× slower (1.86 against 0.48 ms). A block is reused by the next allocation of
// at most its size on the same thread that is at least half its size; a thread keeps at most
// kWorkspaceCacheBlocks blocks and kWorkspaceCacheBytes bytes, and frees them when it exits.
#pragma once
#include <cstdint>

namespace tessel {

constexpr int kWorkspaceCacheBlocks = 16;
constexpr int64_t kWorkspaceCacheBytes = int64_t{512} << 20;
constexpr int64_t kWorkspaceAlign = 64;

}  // namespace tessel

// The entry points generated code calls, with C linkage (JIT-compiled and exported kernels find
// them by name). The block is aligned to kWorkspaceAlign bytes; nullptr if memory is exhausted.
extern "C" void* tessel_workspace_alloc(int64_t bytes);
extern "C" void tessel_workspace_free(void* block);
