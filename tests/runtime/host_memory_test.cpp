// NDArray host memory: 64-byte alignment for small arrays; large ones mapped on whole, aligned
// huge pages, which the kernel backs with huge pages where transparent huge pages are on, and
// unmapped when their last owner lets go.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/host_memory.h"
#include "runtime/ndarray.h"

namespace {

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// The AnonHugePages (kB) of the mapping holding `p` in /proc/self/smaps, -1 if none holds it.
int64_t huge_kb_of_mapping(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= address(p) && address(p) < hi;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stoll(line.substr(14));
  }
  return -1;
}

// Whether this kernel backs madvise(MADV_HUGEPAGE) ranges with huge pages.
bool transparent_huge_pages_on() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return text.find("[always]") != std::string::npos || text.find("[madvise]") != std::string::npos;
}

}  // namespace

TEST_CASE("small host arrays are 64-byte aligned and zero bytes are allowed", "[runtime][host_memory]") {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{100}, tessel::kHugePageBytes - 1}) {
    auto p = tessel::allocate_host(bytes);
    REQUIRE(p);
    CHECK(address(p.get()) % tessel::kHostAlignment == 0);
  }
}

TEST_CASE("large host arrays sit on whole huge pages, backed by them where the kernel offers them",
          "[runtime][host_memory]") {
  REQUIRE(tessel::huge_pages_enabled());  // the tests run without TESSEL_HUGE_PAGES=0
  const size_t bytes = 2 * tessel::kHugePageBytes + 12345;
  auto p = tessel::allocate_host(bytes);
  REQUIRE(p);
  CHECK(address(p.get()) % tessel::kHugePageBytes == 0);
  std::memset(p.get(), 0x5a, bytes);
  // The rounding up to whole pages is ours to use too: the mapping spans three.
  CHECK(static_cast<unsigned char*>(p.get())[3 * tessel::kHugePageBytes - 1] == 0);
  if (transparent_huge_pages_on()) CHECK(huge_kb_of_mapping(p.get()) >= 2048);
}

TEST_CASE("an NDArray of a large shape holds what is written through its whole length", "[runtime][host_memory]") {
  tessel::NDArray a = tessel::NDArray::empty({3 << 18}, tessel::ElementType::of<float>());  // 3 MiB
  CHECK(address(a.data()) % tessel::kHugePageBytes == 0);
  float* f = a.data_as<float>();
  for (int64_t i = 0; i < a.numel(); ++i) f[i] = static_cast<float>(i % 1000);
  tessel::NDArray b = a.copy();
  CHECK(b.data_as<float>()[a.numel() - 1] == static_cast<float>((a.numel() - 1) % 1000));
  CHECK(tessel::max_abs_diff(a, b) == 0);
}
