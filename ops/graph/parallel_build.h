// Kernels of a graph compile in parallel, one per core: what the unfused executor and the fused
// graph compiler share.
#pragma once
#include <cstddef>
#include <functional>

namespace tessel::ops {

// Runs work(i) for every i in [0, count) on as many threads as the machine has. After a failure
// no new item starts; the first exception is rethrown once all threads have stopped.
void parallel_for_each(size_t count, const std::function<void(size_t)>& work);

}  // namespace tessel::ops
