// Parallel compilation of a graph's kernels (ops/graph/parallel_build.h).
#include "ops/graph/parallel_build.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <thread>
#include <vector>

namespace tessel::ops {

void parallel_for_each(size_t count, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < count;) work(i);
  };
  size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, count ? count : 1);
  std::vector<std::future<void>> running;
  for (size_t t = 1; t < threads; ++t) running.push_back(std::async(std::launch::async, worker));
  std::exception_ptr failure;
  try {
    worker();
  } catch (...) {
    failure = std::current_exception();
    next = count;
  }
  for (auto& f : running) {
    try {
      f.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tessel::ops
