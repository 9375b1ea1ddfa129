// Host memory for NDArrays, large arrays on transparent huge pages (see host_memory.h).
#include "runtime/host_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "support/error.h"

namespace tessel {

namespace {

std::shared_ptr<void> allocate_small(size_t nbytes) {
  // aligned_alloc wants a multiple of the alignment.
  void* p = std::aligned_alloc(kHostAlignment, host_aligned_size(std::max<size_t>(nbytes, 1)));
  if (!p) user_error("NDArray: cannot allocate ", nbytes, " bytes: out of memory");
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

// A mapping of whole huge pages at a huge-page boundary: map one page more than asked, unmap the
// ends around the aligned part. The pages fault in on first touch, after the advice, so the kernel
// can back them with huge pages (falling back to small ones when it has none free).
std::shared_ptr<void> allocate_huge(size_t nbytes) {
  size_t length = round_up(nbytes, kHugePageBytes), mapped = length + kHugePageBytes;
  void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) user_error("NDArray: cannot map ", nbytes, " bytes: out of memory");
  auto start = reinterpret_cast<uintptr_t>(m), begin = round_up(start, kHugePageBytes), end = begin + length;
  if (begin > start) munmap(m, begin - start);
  if (end < start + mapped) munmap(reinterpret_cast<void*>(end), start + mapped - end);
  auto* p = reinterpret_cast<void*>(begin);
  madvise(p, length, MADV_HUGEPAGE);  // no huge pages (a kernel without them) is no error
  return std::shared_ptr<void>(p, [length](void* q) { munmap(q, length); });
}

}  // namespace

bool huge_pages_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("TESSEL_HUGE_PAGES");
    return !value || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

std::shared_ptr<void> allocate_host(size_t nbytes) {
  return nbytes >= kHugePageBytes && huge_pages_enabled() ? allocate_huge(nbytes) : allocate_small(nbytes);
}

}  // namespace tessel
