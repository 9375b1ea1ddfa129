// The thread pool that runs parallel loops of generated kernels (and any other data-parallel work).
//
// parallel_for(n, fn, data) calls fn(i, data) for every i in [0, n), split statically into one
// contiguous share per thread; the calling thread works too. Each thread runs its share front to
// back in slices (slices_per_thread per share), and a thread done with its own takes slices from
// the back of the others'. The machines Tessel targets often have few cores shared with other
// tenants, whose load slows one core and not the other for milliseconds at a time: with static
// shares alone a job waits for the slowest. For the same reason idle workers spin only briefly and
// then block (a pool that spins forever steals the CPU from the very thread it waits for), and a
// share whose worker has not started yet is run by the others.
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
// rethrown here after every slice has finished (a throwing slice skips the rest of its indices).
void parallel_for(int64_t n, ParallelTask task, void* data);

// The same partition, but each slice [begin, end) is handed over in one call (never an empty one),
// so the loop over it lives inside the task where a compiler can vectorize it. A loop of 2^32
// iterations or more runs on the calling thread in one call.
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

// Slices each thread's share is run in (at least one iteration each). The default is the
// TESSEL_SLICES_PER_THREAD environment variable if set, else 8. 1 gives one call per share and no
// balancing but a late worker's share, the pool's behaviour before slices (for ablations).
void set_slices_per_thread(int n);
int slices_per_thread();

}  // namespace tessel

// The entry point generated code calls: parallel_for_range with C linkage, so JIT-compiled and
// exported kernels find it by name. Tasks must not throw.
extern "C" void tessel_parallel_for(int64_t n, tessel::ParallelRangeTask task, void* data);
