// The per-thread cache of kernel heap buffers (runtime/workspace.h).
#include "runtime/workspace.h"

#include <cstdlib>
#include <vector>

namespace tessel {

namespace {

// Each block starts with a header of one alignment unit holding its capacity, so free needs no
// lookup and the caller's pointer keeps the alignment.
struct Header {
  int64_t capacity;
};
static_assert(sizeof(Header) <= kWorkspaceAlign);

struct Block {
  int64_t capacity;
  char* base;
};

class ThreadCache {
 public:
  ~ThreadCache() {
    for (const Block& b : blocks_) std::free(b.base);
  }

  // The smallest cached block of at least `bytes` and at most twice as many, taken out of the cache.
  char* take(int64_t bytes) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(blocks_.size()); ++i) {
      int64_t c = blocks_[i].capacity;
      if (c >= bytes && c <= 2 * bytes && (best < 0 || c < blocks_[best].capacity)) best = i;
    }
    if (best < 0) return nullptr;
    char* base = blocks_[best].base;
    cached_bytes_ -= blocks_[best].capacity;
    blocks_.erase(blocks_.begin() + best);
    return base;
  }

  // Keeps the block, dropping the oldest ones beyond the cache's limits.
  void put(char* base, int64_t capacity) {
    blocks_.push_back({capacity, base});
    cached_bytes_ += capacity;
    while (blocks_.size() > static_cast<size_t>(kWorkspaceCacheBlocks) || cached_bytes_ > kWorkspaceCacheBytes) {
      std::free(blocks_.front().base);
      cached_bytes_ -= blocks_.front().capacity;
      blocks_.erase(blocks_.begin());
    }
  }

 private:
  std::vector<Block> blocks_;
  int64_t cached_bytes_ = 0;
};

thread_local ThreadCache cache;

}  // namespace

}  // namespace tessel

extern "C" void* tessel_workspace_alloc(int64_t bytes) {
  using namespace tessel;
  if (bytes < 0) return nullptr;
  int64_t capacity = (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
  char* base = cache.take(capacity);
  if (!base) {
    base = static_cast<char*>(std::aligned_alloc(kWorkspaceAlign, capacity + kWorkspaceAlign));
    if (!base) return nullptr;
    reinterpret_cast<Header*>(base)->capacity = capacity;
  }
  return base + kWorkspaceAlign;
}

extern "C" void tessel_workspace_free(void* block) {
  using namespace tessel;
  if (!block) return;
  char* base = static_cast<char*>(block) - kWorkspaceAlign;
  cache.put(base, reinterpret_cast<Header*>(base)->capacity);
}
