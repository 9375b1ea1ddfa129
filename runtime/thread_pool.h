// The thread pool that runs parallel loops of generated kernels (and any other data-parallel work).
//
// parallel_for(n, fn, data) calls fn(i, data) for every i in [0, n), split statically into one
// contiguous chunk per thread; the calling thread works too. The machines Tessel targets often
// have few, shared cores, so idle workers spin only briefly and then block (a pool that spins
// forever steals the CPU from the very thread it waits for), and a chunk whose worker has not
// started yet when the caller runs out of work is run by the caller instead.
//
// A parallel_for issued from inside a task (a nested parallel loop), or while another thread's
// parallel_for occupies the pool, runs serially on the calling thread. A forked child process
// gets a fresh pool of its own on first use.
#pragma once
#include <cstdint>
#include <type_traits>

namespace tessel {

using ParallelTask = void (*)(int64_t index, void* data);
using ParallelRangeTask = void (*)(int64_t begin, int64_t end, void* data);

// Runs task(i, data) for i in [0, n); n <= 0 does nothing. If tasks throw, the first exception is
// rethrown here after every chunk has finished (a throwing chunk skips the rest of its indices).
void parallel_for(int64_t n, ParallelTask task, void* data);

// The same partition, but each thread's chunk [begin, end) is handed over in one call (never an
// empty one), so the loop over the chunk lives inside the task where a compiler can vectorize it.
void parallel_for_range(int64_t n, ParallelRangeTask task, void* data);

// Convenience for C++ callers: body(i) for i in [0, n).
template <typename Body>
void parallel_for(int64_t n, Body&& body) {
  parallel_for(n, [](int64_t i, void* d) { (*static_cast<std::remove_reference_t<Body>*>(d))(i); },
               const_cast<void*>(static_cast<const void*>(&body)));
}

// Number of threads parallel_for uses, the caller included. The default is the TESSEL_NUM_THREADS
// environment variable if set, else the hardware concurrency. Must not be called from a task.
void set_num_threads(int n);
int num_threads();

}  // namespace tessel

// The entry point generated code calls: parallel_for_range with C linkage, so JIT-compiled and
// exported kernels find it by name. Tasks must not throw.
extern "C" void tessel_parallel_for(int64_t n, tessel::ParallelRangeTask task, void* data);
