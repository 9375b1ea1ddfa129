// The kernels' workspace cache: aligned blocks, reuse of a freed block by the next allocation of
// a similar size on the same thread, never of a block much larger than asked for, and blocks that
// move between threads.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <thread>

#include "runtime/workspace.h"

namespace {

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % tessel::kWorkspaceAlign == 0; }

}  // namespace

TEST_CASE("workspace blocks are aligned and a freed one serves the next request of its size", "[runtime][workspace]") {
  const int64_t bytes = 3 << 20;
  void* a = tessel_workspace_alloc(bytes);
  REQUIRE(a != nullptr);
  CHECK(aligned(a));
  std::memset(a, 1, bytes);
  tessel_workspace_free(a);
  void* b = tessel_workspace_alloc(bytes - 100);  // a little smaller: the same block
  CHECK(b == a);
  void* c = tessel_workspace_alloc(bytes);  // the cached one is taken: a new block
  CHECK(c != b);
  CHECK(aligned(c));
  tessel_workspace_free(b);
  tessel_workspace_free(c);
}

TEST_CASE("a workspace block is not handed out for a request under half its size", "[runtime][workspace]") {
  void* big = tessel_workspace_alloc(8 << 20);
  tessel_workspace_free(big);
  void* small = tessel_workspace_alloc(1 << 20);
  CHECK(small != big);
  tessel_workspace_free(small);
  CHECK(tessel_workspace_alloc(-1) == nullptr);
  tessel_workspace_free(nullptr);  // does nothing
}

TEST_CASE("a workspace block freed on another thread joins that thread's cache", "[runtime][workspace]") {
  void* block = tessel_workspace_alloc(1 << 20);
  std::thread([&] {
    tessel_workspace_free(block);
    void* again = tessel_workspace_alloc(1 << 20);
    CHECK(again == block);
    tessel_workspace_free(again);
  }).join();  // the thread's cache frees the block when it exits
}
