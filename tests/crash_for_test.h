// A real SIGSEGV for tests of crash handling, without the undefined behaviour (a store through a
// null pointer) that UBSan would report, and halt on, before the signal: a store to a page mapped
// without access. Under AddressSanitizer the suite runs with handle_segv=0 (scripts/sanitize.sh),
// so the signal reaches the handlers under test.
#pragma once
#include <sys/mman.h>

#include <cstdlib>

namespace tessel::test {

[[noreturn]] inline void segfault_for_test() {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED) *static_cast<volatile int*>(page) = 1;
  std::abort();  // not reached: the store faults
}

}  // namespace tessel::test
